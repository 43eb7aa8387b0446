"""``driftguard fix``: repair a hand-written document in place, one value or row at a time.

``plan_fixes`` judges the rules and plans a change per fixable finding (a stale
quantity rewritten in the document's own style, a missing table row added);
``apply_fixes`` proves each changed document safe and writes it atomically, or
with ``dry_run`` only diffs it; ``render_fix`` words the outcome. Missing-in-code
findings are never fixed: the document may be right.
"""

from __future__ import annotations

from driftguard.fix.changes import Change, Unfixed
from driftguard.fix.edits import TODO
from driftguard.fix.plan import MAY_BE_RIGHT, DocPlan, FixPlan, plan_fixes
from driftguard.fix.write import DocOutcome, FixOutcome, apply_fixes, render_fix

__all__ = [
    "MAY_BE_RIGHT", "TODO", "Change", "DocOutcome", "DocPlan", "FixOutcome", "FixPlan", "Unfixed",
    "apply_fixes", "plan_fixes", "render_fix",
]
