"""The graph's wiring, and nothing else: it reads like seed 000's diagram.

textual_pre_plan -> llm_pre_plan -> llm_plan -> delegate -> execute -> verify -> review
        each planning phase may also go to delegate, tool or END; tool -> review;
        delegate -> verify first (repair.before_first_attempt): a failing check goes to
                    repair before any model call; review then sends the task to execute;
        review -> repair (a new failure: search small edits without a model),
                  textual_pre_plan (continue), execute (after the first check) or END;
        repair -> verify (a repair was applied) or review (none found);
        review -> sample (after the first model attempt failed: k candidates tried in
                  scratch copies) -> verify (one passed) or review (none did).
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from codur.graph import routing
from codur.graph.nodes.delegate import delegate
from codur.graph.nodes.execute import execute
from codur.graph.nodes.llm_plan import llm_plan
from codur.graph.nodes.llm_pre_plan import llm_pre_plan
from codur.graph.nodes.repair import repair
from codur.graph.nodes.review import review
from codur.graph.nodes.sample import sample
from codur.graph.nodes.textual_pre_plan import textual_pre_plan
from codur.graph.nodes.tool import tool
from codur.graph.nodes.verify import verify
from codur.graph.state import AgentState
from codur.session import Session


def build_graph() -> CompiledStateGraph:
    graph = StateGraph(AgentState, context_schema=Session)
    graph.add_node("textual_pre_plan", textual_pre_plan)
    graph.add_node("llm_pre_plan", llm_pre_plan)
    graph.add_node("llm_plan", llm_plan)
    graph.add_node("delegate", delegate)
    graph.add_node("execute", execute)
    graph.add_node("tool", tool)
    graph.add_node("verify", verify)
    graph.add_node("review", review)
    graph.add_node("repair", repair)
    graph.add_node("sample", sample)

    graph.add_edge(START, "textual_pre_plan")
    graph.add_conditional_edges("textual_pre_plan", routing.after_textual_pre_plan)
    graph.add_conditional_edges("llm_pre_plan", routing.after_llm_pre_plan)
    graph.add_conditional_edges("llm_plan", routing.after_llm_plan)
    graph.add_conditional_edges("delegate", routing.after_delegate)
    graph.add_edge("execute", "verify")
    graph.add_edge("verify", "review")
    graph.add_edge("tool", "review")
    graph.add_conditional_edges("review", routing.after_review)
    graph.add_conditional_edges("repair", routing.after_repair)
    graph.add_conditional_edges("sample", routing.after_sample)
    return graph.compile()


__all__ = ["END", "build_graph"]
