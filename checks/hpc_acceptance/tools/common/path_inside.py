'''Paths built from what a report holds, kept inside their directory.

A page's folder is named after its session, a system's noise floors and
references after the system: names a report or the results database hand
in. Checked names (:mod:`.identifiers`) hold no ``/`` or ``..``; a link
planted in the directory could still lead out of it. So a path built from
such a name is used only once it resolves (links followed) to a place
below its directory.
'''

import os


class OutsideItsDirectory(ValueError):
    '''A path that resolves outside the directory it was built in; the
    message names both.'''


def path_inside(directory, path):
    '''``path`` if it resolves to a place below ``directory`` (itself
    resolved), never the directory itself.

    :raises OutsideItsDirectory: naming both where it does not.
    '''
    home = os.path.realpath(directory)
    resolved = os.path.realpath(path)
    if resolved == home or os.path.commonpath([home, resolved]) != home:
        raise OutsideItsDirectory(f'{path} resolves to {resolved}, outside '
                                  f'{home}: not used')

    return path
