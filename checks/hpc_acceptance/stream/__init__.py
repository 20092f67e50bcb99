'''STREAM: McCalpin's ``stream.c`` from Spack or the in-tree program of
``src/stream``.

:mod:`.check` is the base check, :mod:`.sizing` the thread layouts and
array sizes, :mod:`.output` the parser of both programs' output and
:mod:`.build` the in-tree build fixture.
'''
