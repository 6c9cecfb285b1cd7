"""The graph's wiring, and nothing else: the nodes and the edges between them, drawn below.

Fixed edges are here; a node that chooses returns `Command[Literal[...]]` (its possible
destinations are in its signature, and `codur graph` draws them dashed):

textual_pre_plan -> llm_pre_plan | llm_plan | delegate | explain | run_command | tool | END
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
review           -> execute | repair | sample | crosscheck | textual_pre_plan (retry) |
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

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from codur.agents.loop import add_loop
from codur.ask.build import build_ask_graph
from codur.graph.nodes.command import run_command
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


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """The run graph; with `checkpointer`, its state is saved after every step (for
    `codur resume`: codur/graph/checkpoint.py)."""
    graph = StateGraph(AgentState, context_schema=Session)
    graph.set_node_defaults(error_handler=node_error)  # an exception: record, retry or end
    graph.add_node("textual_pre_plan", textual_pre_plan)
    graph.add_node("llm_pre_plan", llm_pre_plan)
    graph.add_node("llm_plan", llm_plan)
    graph.add_node("tool", tool)
    graph.add_node("explain", explain_with(build_ask_graph()))
    graph.add_node("run_command", run_command)
    graph.add_node("delegate", delegate)
    graph.add_node("execute", build_execute())
    graph.add_node("verify", verify)
    graph.add_node("review", review)
    graph.add_node("repair", repair)
    graph.add_node("sample", sample)
    graph.add_node("crosscheck", crosscheck)
    graph.add_node("planner", planner)
    graph.add_node("verifier", verifier)
    graph.add_node("replan", replan)

    graph.add_edge(START, "textual_pre_plan")
    graph.add_edge("explain", END)
    graph.add_edge("run_command", END)
    graph.add_edge("execute", "verify")
    graph.add_edge("verify", "review")
    graph.add_edge("planner", "execute")
    graph.add_edge("verifier", "review")
    graph.add_edge("replan", "execute")
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
