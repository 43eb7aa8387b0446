from __future__ import annotations

from typing import Any, ClassVar


class Config:
    default_config: ClassVar[dict[str, Any]] = {
        "cache-dir": "~/.cache/shop",
        "installer": {
            "parallel": True,
            "max-workers": 4,
        },
        "requests": {"max-retries": 0},
    }
