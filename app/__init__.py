"""Baton: annotate multi-agent LLM runs. The core library (no Streamlit in here but `app.ui`)."""
