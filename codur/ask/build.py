"""The ask graph's wiring, and nothing else:

retrieve (the code index searched for each part of the question) -> synthesizer when
retrieval is strong (one model call), else -> planner (the research loop):
planner -> setup_executor -> executor_llm -> tool_node -> executor_llm (the model <->
tools loop of codur.agents.loop, its nodes named for ask)
executor_llm -> aggregate (no tool calls, or ask.max_executor_steps reached)
aggregate -> refinery -> planner (CONTINUE) | synthesizer (FINISH) -> END

The choices are the nodes' (`Command[Literal[...]]`: retrieve, refinery) and the loop's
(`route`: executor_llm); every other edge is fixed here.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from codur.agents.loop import add_loop
from codur.ask.nodes import traced
from codur.ask.nodes.executor import NODES, aggregate, setup_executor
from codur.ask.nodes.planner import planner
from codur.ask.nodes.refinery import refinery
from codur.ask.nodes.retrieve import retrieve
from codur.ask.nodes.synthesizer import synthesizer
from codur.ask.state import AskState
from codur.session import Session


def build_ask_graph() -> CompiledStateGraph:
    graph = StateGraph(AskState, context_schema=Session)
    graph.add_node("retrieve", retrieve)
    graph.add_node("planner", planner)
    graph.add_node("setup_executor", setup_executor)
    add_loop(graph, "aggregate", NODES, trace=traced, completion=False)
    graph.add_node("aggregate", aggregate)
    graph.add_node("refinery", refinery)
    graph.add_node("synthesizer", synthesizer)

    graph.add_edge(START, "retrieve")
    graph.add_edge("planner", "setup_executor")
    graph.add_edge("setup_executor", "executor_llm")
    graph.add_edge("aggregate", "refinery")
    graph.add_edge("synthesizer", END)
    return graph.compile()
