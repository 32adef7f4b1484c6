"""Client of the Merchant Payments Service: routes, typed models, errors, money rules.

Qt-free. ``PaymentsClient`` is the one entry point; see ``errors`` for the error tree.
"""

from pos_app.api.client import PaymentsClient, RetryPolicy, check_base_url
from pos_app.api.errors import *  # noqa: F403 - the error tree is part of the API
from pos_app.api.errors import __all__ as _errors
from pos_app.api.identity import Identity, attempt_in
from pos_app.api.models import (
    CloseBatchResult,
    Item,
    MessageStatus,
    PayAccepted,
    Payment,
    TerminalResult,
    TransactionEntry,
)
from pos_app.api.requests import (
    CaptureRequest,
    CloseBatchRequest,
    CustomValue,
    ItemDraft,
    PayRequest,
    RefundRequest,
    VoidRequest,
)
from pos_app.api.routes import ROUTES, Route, RouteTable

__all__ = [
    "CaptureRequest", "CloseBatchRequest", "CloseBatchResult", "CustomValue", "Identity", "Item",
    "ItemDraft", "MessageStatus", "PayAccepted", "Payment", "PayRequest", "PaymentsClient",
    "ROUTES", "RefundRequest", "RetryPolicy", "Route", "RouteTable", "TerminalResult",
    "TransactionEntry", "VoidRequest", "attempt_in", "check_base_url", *_errors,
]
