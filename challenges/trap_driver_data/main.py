from lib import has_cycle

edge = {"a": ["b"], "b": []}
chain = {"a": ["b"], "b": ["c"], "c": []}
diamond = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []}
ring = {"a": ["b"], "b": ["c"], "c": ["a"]}
self_loop = {"x": ["x"], "y": []}


def verdict(graph):
    return "cycle" if has_cycle(graph) else "no cycle"


print("edge:", verdict(edge))
print("chain:", verdict(chain))
print("diamond:", verdict(diamond))
print("ring:", verdict(ring))
print("self_loop:", verdict(self_loop))
