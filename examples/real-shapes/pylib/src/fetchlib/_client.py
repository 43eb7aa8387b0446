from fetchlib._config import DEFAULT_LIMITS, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_CONFIG


class Client:
    def __init__(
        self,
        *,
        follow_redirects: bool = False,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        trust_env: bool = True,
        http2: bool = False,
        timeout: object = DEFAULT_TIMEOUT_CONFIG,
        limits: object = DEFAULT_LIMITS,
        base_url: str = "",
    ) -> None:
        self.follow_redirects = follow_redirects
        self.max_redirects = max_redirects
        self.trust_env = trust_env
        self.http2 = http2
        self.timeout = timeout
        self.limits = limits
        self.base_url = base_url
