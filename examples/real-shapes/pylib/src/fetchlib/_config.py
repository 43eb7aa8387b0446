import os

DEFAULT_MAX_REDIRECTS = 20


class Timeout:
    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = timeout


class Limits:
    def __init__(self, max_connections: int = 100, max_keepalive_connections: int = 20) -> None:
        self.max_connections = max_connections
        self.max_keepalive_connections = max_keepalive_connections


DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)
DEFAULT_LIMITS = Limits(max_connections=100, max_keepalive_connections=20)


def certificate_file() -> str | None:
    return os.environ.get("SSL_CERT_FILE")


def certificate_dir() -> str | None:
    return os.environ.get("SSL_CERT_DIR")


def log_level() -> str:
    return os.getenv("FETCHLIB_LOG_LEVEL", "warning")
