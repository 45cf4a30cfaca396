"""Agent interaction graph: critical path and problematic handoffs."""
from app.ui.page import annotation_page
from app.ui.surfaces import agent_interaction_graph

# the graph first: its component takes longest to show in the browser (it loads in an iframe)
annotation_page("agent_interaction_graph", agent_interaction_graph.render, surface_first=True)
