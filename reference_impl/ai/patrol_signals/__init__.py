"""Upstream's ``internal/ai/patrol_signals.go``: deterministic problem signals in Patrol's tool output.

The entry points are in ``detect``; the signal types, default thresholds and
shared records in ``types``; which reader a call goes to, and the pool and
metrics readers, in ``readers``; SMART in ``smart``; backups in ``backups``;
and decoding as Go's ``json.Unmarshal`` does in ``unmarshal``.
"""
