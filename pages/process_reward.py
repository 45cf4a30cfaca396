"""The process_reward schemes of the project (Process reward)."""
from app.ui.page import annotation_page
from app.ui.surfaces import process_reward

annotation_page("process_reward", process_reward.render)
