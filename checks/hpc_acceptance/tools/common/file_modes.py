'''Who may read the files the tool writes.

Results (the results database, its backups and the export's spool, the
locks, ``var/`` with its reports, logs and page) are the site's and the
night's account's: they are created under a private umask,
:data:`PRIVATE` (0027: nothing for others, no writing for the group) or
the caller's where it is stricter (:func:`keep_private`), so that a node's
other users read neither its figures nor the spool's. Settings that an
administrator writes for the night's account to read (``new-system``'s
files in the site directory, ``propose-references --write``) keep the
caller's umask, and a file written in one step is given the mode the
umask allows (:func:`shared_mode`), not ``mkstemp``'s 0600.

Standard library only: ``python3 -m hpc_acceptance.tools.launch.lock``
runs before the setup.
'''

import os

#: The umask of the files the tool writes for itself.
PRIVATE = 0o027

#: The mode ReFrame gives the results database it creates (its own
#: default is 0644: it sets the mode whatever the umask); also
#: ``config/settings.py``'s ``sqlite_db_file_mode``.
DATABASE_MODE = 0o640


def keep_private():
    '''Make this process's umask at least :data:`PRIVATE`, keeping any
    stricter bits of the caller's; the processes it starts (ReFrame, its
    jobs) inherit it.'''
    os.umask(os.umask(PRIVATE) | PRIVATE)


def umask():
    '''This process's umask.'''
    mask = os.umask(0)
    os.umask(mask)
    return mask


def shared_mode(path):
    '''The mode for a new version of the settings file ``path``: the one
    it has where it exists (an administrator's choice), else 0644 less
    the umask.'''
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~umask()
