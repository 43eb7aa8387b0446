"""Upstream's ``internal/ai``: Patrol's signals and findings, and the chat loop."""
