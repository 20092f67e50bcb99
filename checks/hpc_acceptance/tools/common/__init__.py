'''What every command shares, below every room: the options several
commands take (:mod:`.arguments`), defined once; who may read the files
the tool writes (:mod:`.file_modes`).'''
