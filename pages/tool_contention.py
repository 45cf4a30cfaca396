"""Tool contention: label each shared-resource contention region on the agents' timeline."""
from app.ui.page import annotation_page
from app.ui.surfaces import tool_contention

annotation_page("tool_contention", tool_contention.render, warm=tool_contention.warm)
