"""Summary: progress, rollups, agreement, accuracy against gold, exports and the report."""
from app.ui import summary_page

summary_page.render()
