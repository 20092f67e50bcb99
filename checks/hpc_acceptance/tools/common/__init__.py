'''What every command shares, below every room: the options several
commands take (:mod:`.arguments`), defined once.'''
