'''The fleet comparison's words for people: figures and node lists as
the suspects' lines, the findings and the report page write them.'''


def number(value):
    '''A figure as people read it: ``58510``, ``95.3``, ``1.42``;
    ``no measurement`` for ``None``.'''
    if value is None:
        return 'no measurement'

    return f'{value:.0f}' if abs(value) >= 1000 else f'{value:.3g}'


def node_list(nodes, shown=6):
    '''``n1, n2, ... +N more``.'''
    more = f' +{len(nodes) - shown} more' if len(nodes) > shown else ''
    return ', '.join(nodes[:shown]) + more
