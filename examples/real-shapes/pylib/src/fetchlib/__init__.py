"""A small HTTP client library, shaped as httpx is."""

from fetchlib._client import Client
from fetchlib._config import Limits, Timeout
from fetchlib._exceptions import (
    ConnectError,
    DecodingError,
    HTTPError,
    ReadTimeout,
    RequestError,
    TimeoutException,
    TransportError,
)

__all__ = [
    "Client",
    "ConnectError",
    "DecodingError",
    "HTTPError",
    "Limits",
    "ReadTimeout",
    "RequestError",
    "Timeout",
    "TimeoutException",
    "TransportError",
]
