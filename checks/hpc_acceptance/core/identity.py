'''What produced a figure: the inputs that change it, as one string.

Two runs of the same check variant (partition, environment, parameters)
can still measure different things: NPB at class W or C, HPL over 0.5 % or
80 % of memory, STREAM arrays of another size, a binary built for another
ISA. A figure is only comparable with figures of the same *identity*.

Each check family names its inputs once, in ``identity_fields`` (attribute
names of the check); :class:`~hpc_acceptance.core.check.AcceptanceCheck`
adds the ISA the binary was actually built for and the kind of dependency
source, and records the result as the loggable variable ``identity``::

    dependency=in-tree;isa_built=avx2;npb_class=C;num_tasks=4

Fields are sorted, ``;``-separated ``name=value`` pairs; list values are
joined with spaces. The string is what the perflog line, the JSON report,
the reference files (``$index: [..., identity]``), ``propose-references``,
``compare-published`` and ``post-upgrade`` key figures by.
'''

#: The value of a field that is only known once the benchmark has run (the
#: ISA an in-tree program says it was built for).
UNKNOWN = '?'

#: The fields that say where the binary came from rather than what work it
#: did: an upgrade changes them (a new compiler, Spack instead of a
#: package), and a post-upgrade comparison must compare across them.
PROVENANCE = ('dependency', 'isa_built')


class IdentityError(ValueError):
    '''An identity string cannot be parsed; the message quotes it.'''


def render(fields):
    '''The identity string of ``{name: value}``.'''
    parts = []
    for name, value in sorted(fields.items()):
        if isinstance(value, (list, tuple)):
            value = ' '.join(str(v) for v in value)

        value = str(value)
        if ';' in value or '=' in name:
            raise IdentityError(f'identity field {name}={value!r}: names may '
                                f'not contain "=", values not ";"')

        parts.append(f'{name}={value}')

    return ';'.join(parts)


def parse(identity):
    '''``{name: value}`` of an identity string.'''
    fields = {}
    for part in str(identity).split(';') if identity else []:
        name, sep, value = part.partition('=')
        if not sep or not name:
            raise IdentityError(f'identity {identity!r}: {part!r} is not '
                                f'name=value')

        fields[name] = value

    return fields


def differing_fields(expected, actual):
    '''The names of the fields that differ between two identity strings,
    sorted; a field :data:`UNKNOWN` in ``actual`` is not compared.'''
    want, have = parse(expected), parse(actual)
    return [name for name in sorted(set(want) | set(have))
            if want.get(name, '(absent)') != have.get(name, '(absent)') and
            have.get(name) != UNKNOWN]


def differences(expected, actual):
    '''What differs between two identity strings, as ``name: reference
    A, this run B`` phrases (see :func:`differing_fields`).'''
    want, have = parse(expected), parse(actual)
    return [f'{name}: reference {want.get(name, "(absent)")}, this run '
            f'{have.get(name, "(absent)")}'
            for name in differing_fields(expected, actual)]


def matches(expected, actual):
    '''Whether a run of identity ``actual`` may be compared with figures
    of identity ``expected`` (fields still unknown are not compared).'''
    return not differences(expected, actual)


def workload(identity):
    '''The identity without its :data:`PROVENANCE` fields: the work that
    produced the figures, whatever binary did it.'''
    fields = parse(identity)
    for name in PROVENANCE:
        fields.pop(name, None)

    return render(fields)


def dependency_kind(source):
    '''``spack``, ``module``, ``path``, ``in-tree`` or ``npb_dir``: the
    kind of a ``dependency_source``, without the checkout-specific path.'''
    return str(source).split(':', 1)[0]
