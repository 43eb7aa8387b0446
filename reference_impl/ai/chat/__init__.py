"""Upstream's ``internal/ai/chat``: the agentic loop, its phases, the session state
machine and the records a run passes around."""
