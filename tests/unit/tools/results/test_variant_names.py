'''A test case's check and parameters read from its display name
(hpc_acceptance.tools.results.runs.variant_of, figure_key): the node a
name is pinned to (``%.nid=``) is no parameter, and a name read without
it, as the judging reads it, gives what the whole name gives.'''

import re

from hypothesis import example, given
from hypothesis import strategies as st

from hpc_acceptance.tools.results.runs import figure_key, variant_of

_PARAM = re.compile(r'%(?P<name>[A-Za-z_]\w*)=(?P<value>\S+)')


def _read_whole(display_name):
    '''The display name read as a whole, parameter by parameter.'''
    return display_name.split()[0], {
        m['name']: int(m['value']) if m['value'].isdigit() else m['value']
        for m in _PARAM.finditer(display_name)}


_WORDS = st.sampled_from([
    'StreamCheck', '%threads=single', '%threads=all_cores', '%num_procs=4',
    '%.nid=n1', '%.nid=', '%.part=c:d', '%a=1', '%a=2', '~c:d+gnu', '%',
    '%.nid=n1%b=3'])
_SPACES = st.sampled_from([' ', '\t', '  '])


@given(st.lists(st.tuples(_SPACES, _WORDS), max_size=6), _WORDS)
@example([(' ', '%threads=single'), (' ', '%.nid=n1')], 'StreamCheck')
@example([(' ', '%.nid=n1'), ('\t', '%a=2')], 'StreamCheck')
@example([(' ', '%a=1'), (' ', '%a=2'), (' ', '%.nid=n9')], 'X')
@example([(' ', '%.nid=n1%b=3')], 'StreamCheck')
def test_a_name_reads_as_its_words_say(words, first):
    display_name = first + ''.join(space + word for space, word in words)
    assert variant_of(display_name) == _read_whole(display_name)
    check, params = _read_whole(display_name)
    case = {'display_name': display_name, 'system': 's', 'partition': 'p',
            'environ': 'e'}
    assert figure_key(case) == (check, 's:p', 'e', tuple(params.items()), '')


def test_each_node_s_name_is_one_variant():
    names = [f'StreamCheck %threads=single %.part=c:d %.nid=n{i}'
             for i in range(3)]
    assert {variant_of(name)[1]['threads'] for name in names} == {'single'}
    # the result is the caller's own: changing it changes no other's
    variant_of(names[0])[1]['threads'] = 'changed'
    assert variant_of(names[1])[1] == {'threads': 'single'}
    assert variant_of(names[0])[1] == {'threads': 'single'}
