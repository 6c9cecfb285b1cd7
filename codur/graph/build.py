"""The graph's wiring, and nothing else: the nodes and the edges between them, drawn below.

Fixed edges are here; a node that chooses returns `Command[Literal[...]]` (its possible
destinations are in its signature, and `codur graph` draws them dashed):

textual_pre_plan -> llm_pre_plan | delegate | explain | run_command | tool | END
llm_pre_plan     -> llm_plan | tool | END
llm_plan         -> delegate | explain | run_command | tool | END
                    (the routes: edit -> delegate, explain, run_command; planning/routes.py)
explain          -> END (the ask graph, codur/ask/build.py, drawn inside it)
run_command      -> END
tool             -> llm_plan (planning's calls: the results go back) | END (phase 0's)
delegate         -> verify (first round: check the files first) | execute
execute          -> verify -> review
  (a subgraph)      prepare -> agent <-> tools (at most runtime.max_tool_iterations
                    rounds) -> finish; prepare -> finish (an agent run as a whole);
                    plan mode: agent -> remind -> agent (a reply without tool calls),
                    tools -> finish once attempt_completion succeeded
review           -> execute | repair | sample | crosscheck | delegate (a retry, or the
                    next agent) | llm_plan (a retry with planning.replan_on_retry) |
                    planner | verifier | replan | END (the decision table:
                    codur/graph/decide.py)
repair           -> verify (a fix was applied) | review (none found)
sample           -> verify (a candidate passed in a scratch copy) | review (none did)
crosscheck       -> verify (another reply agreed with more replies: written) | review
                    (the files stay)

plan_verify mode (planning.mode; review chooses it after the first check):
planner          -> execute (the step plan, seeding the todo list)
execute          -> verify (the checks, where there are any) -> review
review           -> verifier (the model judges the completion) -> review
                 -> replan (NOT_VERIFIED, or a check fails; plans left) -> execute | END
any node raising -> the same node again (at most runtime.max_node_retries times;
                    never tool or run_command: their effects would repeat) | END
                    (graph/nodes/node_error.py: LangGraph's error handler)
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from codur.agents.loop import add_loop
from codur.ask.build import build_ask_graph
from codur.graph.node_names import END, Node, Target
from codur.graph.nodes.command import run_planned_command
from codur.graph.nodes.crosscheck import crosscheck
from codur.graph.nodes.delegate import delegate
from codur.graph.nodes.execute import finish, prepare
from codur.graph.nodes.explain import explain_with
from codur.graph.nodes.llm_plan import llm_plan
from codur.graph.nodes.llm_pre_plan import llm_pre_plan
from codur.graph.nodes.node_error import node_error
from codur.graph.nodes.planner import planner
from codur.graph.nodes.repair import repair
from codur.graph.nodes.replan import replan
from codur.graph.nodes.review import review
from codur.graph.nodes.sample import sample
from codur.graph.nodes.textual_pre_plan import textual_pre_plan
from codur.graph.nodes.tool import tool
from codur.graph.nodes.verifier import verifier
from codur.graph.nodes.verify import verify
from codur.graph.state import AgentState, ExecuteState
from codur.session import Session

FIXED: tuple[tuple[Node, Target], ...] = (
    ("explain", END),
    ("run_command", END),
    ("execute", "verify"),
    ("verify", "review"),
    ("planner", "execute"),
    ("verifier", "review"),
    ("replan", "execute"),
)
"""The fixed edges; every other edge is a node's choice (its `Command[Literal[...]]`)."""


def _steps() -> dict[Node, Any]:
    """Each node of the run graph by its name (codur/graph/node_names.py)."""
    return {
        "textual_pre_plan": textual_pre_plan,
        "llm_pre_plan": llm_pre_plan,
        "llm_plan": llm_plan,
        "tool": tool,
        "explain": explain_with(build_ask_graph()),
        "run_command": run_planned_command,
        "delegate": delegate,
        "execute": build_execute(),
        "verify": verify,
        "review": review,
        "repair": repair,
        "sample": sample,
        "crosscheck": crosscheck,
        "planner": planner,
        "verifier": verifier,
        "replan": replan,
    }


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """The run graph; with `checkpointer`, its state is saved after every step (for
    `codur resume`: codur/graph/checkpoint.py)."""
    graph = StateGraph(AgentState, context_schema=Session)
    graph.set_node_defaults(error_handler=node_error)  # an exception: record, retry or end
    for name, step in _steps().items():
        graph.add_node(name, step)
    graph.add_edge(START, "textual_pre_plan")
    for source, target in FIXED:
        graph.add_edge(source, target)
    return graph.compile(checkpointer=checkpointer)


def build_execute() -> CompiledStateGraph:
    """The execute step: the agent loop between the agent's start and its settling. Its
    own steps are not checkpointed (its turn holds the agent and its bound tools, which
    are no data: see codur/graph/checkpoint.py): a resumed run starts an interrupted
    execute step again."""
    graph = StateGraph(
        ExecuteState, context_schema=Session, input_schema=AgentState, output_schema=AgentState
    )
    graph.add_node("prepare", prepare)
    add_loop(graph, done="finish")
    graph.add_node("finish", finish)
    graph.add_edge(START, "prepare")
    graph.add_edge("finish", END)
    return graph.compile()


__all__ = ["END", "build_execute", "build_graph"]
