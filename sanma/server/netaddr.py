"""The client's address of a request or a WebSocket, in a form nobody can spoof.

Every per-address limit keys on ``client_key(scope, settings)`` (or reads the address with
``client_address``); nothing else looks at ``scope["client"]`` or at ``X-Forwarded-For``.

- With ``Settings.trusted_proxies`` empty (``SANMA_TRUSTED_PROXIES`` unset, the default) the
  client is the TCP peer, and ``X-Forwarded-For`` is ignored whoever sends it.
- With a list of addresses and CIDR networks (the reverse proxies in front, e.g.
  ``127.0.0.1,10.0.0.0/8``), a request whose peer is one of them is attributed to the
  right-most hop of ``X-Forwarded-For`` that is *not* a trusted proxy: each proxy appends the
  address it saw, so the hops to the right of the first untrusted one were written by our own
  proxies and the ones to its left by whoever sent the request (anything).  When every hop is
  trusted, the left-most one counts.  A hop that is not an address (a proxy that passed the
  client's header on instead of appending to it) stops the walk at the proxy that sent it: the
  limits then fall on that proxy, too strict but never spoofed.

uvicorn's own ``proxy_headers`` (which trusts ``X-Forwarded-For`` from loopback by default)
must be off wherever the app is served: ``server/serving.py`` builds the one uvicorn config.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any, Protocol


class Proxies(Protocol):
    """What the address functions read of the server's settings (``Settings`` is one; the
    settings module reads its proxies with ``parse_proxies``, so it cannot be imported here)."""

    @property
    def trusted_proxies(self) -> tuple[str, ...]: ...


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

UNKNOWN = "unknown"
# Hops of X-Forwarded-For looked at, from the right (a longer chain is someone's padding).
MAX_HOPS = 32
# IPv6 clients are limited per /64: one subscriber usually holds a whole /64.
IPV6_PREFIX = 64


def parse_proxies(entries: Iterable[str]) -> tuple[IPNetwork, ...]:
    """The networks of ``entries`` (``"10.0.0.1"``, ``"10.0.0.0/8"``, ``"::1"``, ...);
    ``ValueError`` naming a malformed entry."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an address or a CIDR network") from None
    return tuple(networks)


@functools.lru_cache(maxsize=16)
def _trusted(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return parse_proxies(entries)


def parse_address(text: str) -> IPAddress | None:
    """An address from a peer or a hop (``1.2.3.4``, ``1.2.3.4:5678``, ``[::1]:80``, ``::1``);
    an IPv4-mapped IPv6 address as its IPv4 one; ``None`` when it is no address.

    >>> str(parse_address(" [::ffff:192.0.2.7]:443 ")), parse_address("unknown")
    ('192.0.2.7', None)
    """
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_trusted(address: IPAddress, proxies: tuple[IPNetwork, ...]) -> bool:
    return any(address.version == net.version and address in net for net in proxies)


def _forwarded_hops(headers: Iterable[tuple[bytes, bytes]]) -> list[str]:
    hops: list[str] = []
    for name, value in headers:
        if name.lower() == b"x-forwarded-for":
            hops.extend(value.decode("latin-1").split(","))
    return hops[-MAX_HOPS:]


def client_ip(scope: Mapping[str, Any], trusted_proxies: tuple[str, ...]) -> IPAddress | None:
    """The client's address for ``scope`` (an ASGI HTTP or WebSocket scope), believing
    ``X-Forwarded-For`` only from ``trusted_proxies``; ``None`` when the peer is unknown."""
    client = scope.get("client")
    peer = parse_address(str(client[0])) if client else None
    proxies = _trusted(trusted_proxies)
    if peer is None or not proxies or not _is_trusted(peer, proxies):
        return peer
    nearest = peer  # the last trusted hop walked past
    hops = _forwarded_hops(scope.get("headers") or ())
    for hop in reversed(hops):
        address = parse_address(hop)
        if address is None:
            return nearest
        if not _is_trusted(address, proxies):
            return address
        nearest = address
    return nearest


def client_address(scope: Mapping[str, Any], settings: Proxies) -> str:
    """The client's address as text (``"203.0.113.9"``, ``"2001:db8::1"``, ``"unknown"``)."""
    address = client_ip(scope, settings.trusted_proxies)
    return UNKNOWN if address is None else str(address)


def client_key(scope: Mapping[str, Any], settings: Proxies) -> str:
    """The key of every per-address limit: ``"ip:<IPv4>"``, ``"ip:<IPv6 /64 network>"`` or
    ``"ip:unknown"``.  Use this (not ``scope["client"]``) for anything counted per address."""
    address = client_ip(scope, settings.trusted_proxies)
    return f"ip:{address_key(address)}"


def address_key(address: IPAddress | None) -> str:
    """An address as a limit counts it: IPv4 as it is, IPv6 as its /64.

    >>> address_key(ipaddress.ip_address("2001:db8:1:2:3:4:5:6")), address_key(None)
    ('2001:db8:1:2::/64', 'unknown')
    """
    if address is None:
        return UNKNOWN
    if isinstance(address, ipaddress.IPv6Address) and not address.is_loopback:
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)
