class HTTPError(Exception):
    """Base class for every error the library raises."""


class RequestError(HTTPError):
    pass


class TransportError(RequestError):
    pass


class TimeoutException(TransportError):
    pass


class ReadTimeout(TimeoutException):
    pass


class ConnectError(TransportError):
    pass


class DecodingError(RequestError):
    pass
