"""erasure_channel_handler: a store's erasure handler for AWS Lambda, in Python.

    from erasure_channel_handler import make_handler

    def erase_account(request, pass_no, deadline):
        ...  # erase everything held under request.key
        return "DONE"

    handler = make_handler({("erasure/ERASE", "ACCOUNT"): erase_account})

The kit does everything else the protocol asks (docs/quickstart/handler.md),
exactly as Go's contract/storehandler does. See README.md.
"""
from ._version import __version__
from .contract import ContractError, Pair, Request, parse_request, validate
from .env import HandlerEnvironmentError
from .handler import ConfigError, Deadline, DeadlineExceeded, make_handler

__all__ = [
    "__version__", "make_handler", "Pair", "Request", "Deadline", "DeadlineExceeded",
    "ConfigError", "HandlerEnvironmentError", "ContractError", "parse_request", "validate",
]
