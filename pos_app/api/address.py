"""The service address rules: https, or plain http only to this machine (the sandbox).

Apart from the client so that checking settings (``pos_app.config``, the setup screen)
does not import httpx and pydantic.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from pos_app.api.errors import InvalidInput
from pos_app.i18n import _


def check_base_url(url: str) -> str:
    """The service address: https, or http only to a loopback address (sandbox, tests)."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise InvalidInput(_("service address {url!r} must look like https://host[:port]").format(url=url))
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise InvalidInput(_(
            "service address {url!r} uses plain http to a non-loopback host; use https "
            "(http is only for the local sandbox on 127.0.0.1)").format(url=url))
    return url.rstrip("/")


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
