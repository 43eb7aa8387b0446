"""The judging stage: the engine that reads facts and claims for every rule, the
comparison that words each finding, the workspace that reads each file once,
the content-hash cache, and the ``Result`` that reporters and tools are handed.
"""
