"""Upstream's ``internal/agentcapabilities``: the tool names, how a tool call is
classified, the error codes of the agent surface and of tool responses, the
capability manifest, and the handlers the manifest is checked against."""
