"""One vocabulary for the run graph's nodes: the names build.py adds, the routers' choices
and the error handler's retries are all `codur.graph.node_names.Node`."""

from __future__ import annotations

from typing import get_args

from codur.graph.build import build_graph
from codur.graph.decision import Goto
from codur.graph.node_names import END, NODES, Target

LANGGRAPH_OWN = {"__start__", "__default_error_handler__"}
"""Nodes LangGraph adds itself: the entry and the error handler build.py sets."""


def test_every_node_name_is_a_node_of_the_graph_and_every_node_has_a_name() -> None:
    graph = build_graph()
    assert set(graph.nodes) - LANGGRAPH_OWN == set(NODES)
    assert len(NODES) == len(set(NODES))


def test_every_choice_a_node_declares_is_a_node_name() -> None:
    """The destinations each router's `Command[Literal[...]]` names, review's decision
    table's included, are nodes (or the end)."""
    graph = build_graph()
    chosen = {end for spec in graph.builder.nodes.values() for end in spec.ends or ()}
    assert chosen <= {*NODES, END} and "review" in graph.builder.nodes
    assert set(get_args(Goto)) <= set(get_args(Target))
    assert set(graph.builder.nodes["review"].ends or ()) == set(get_args(Goto))
