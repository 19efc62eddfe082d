"""Who a caller is, by address: what per-caller limits count (api/servicer.py peer_host), on the
gRPC port and the web port alike.

The caller is the direct peer, unless that peer is a trusted proxy (``--trusted-proxies``):
then it is the right-most address of the proxies' chain (``Forwarded``, RFC 7239, or
``X-Forwarded-For``) that is not itself a trusted proxy. Everything left of it was written by
the client and is never read. A hop that is not a plain address (``unknown``, an obfuscated
name, garbage) stops the walk at the nearest trusted proxy: a value the client can choose must
never become an identity of its own, or a new one per call would dodge every limit.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.request import parse_http_list

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _address(text: str) -> Address | None:
    """An address in one spelling (IPv4-mapped IPv6 as IPv4, no zone), or None."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.scope_id is not None:  # fe80::1%eth0 and fe80::1%eth1: one caller
            return ipaddress.IPv6Address(int(address))
    return address


@dataclass(frozen=True)
class TrustedProxies:
    """The networks whose peers are proxies: their forwarding headers are believed."""

    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """Comma-separated networks ("10.244.0.0/16, ::1"; a bare address is one host); ""
        for none. ValueError names a bad one."""
        networks = []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item))
            except ValueError as exc:  # host bits set too: 10.0.0.1/8 is a typo, not /8
                raise ValueError(f"not a network (a CIDR such as 10.0.0.0/8): {exc}") from None
        return cls(tuple(networks))

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __contains__(self, host: object) -> bool:
        address = _address(host) if isinstance(host, str) else host
        if not isinstance(address, ipaddress.IPv4Address | ipaddress.IPv6Address):
            return False
        return any(address in network for network in self.networks)


NO_PROXIES = TrustedProxies()


def _node(text: str) -> Address | None:
    """The address of one hop: "192.0.2.1", "192.0.2.1:4711", "[2001:db8::1]:4711", "2001:db8::1"."""
    text = text.strip()
    if text.startswith("["):
        inside, bracket, port = text[1:].partition("]")
        if not bracket or (port and not (port[0] == ":" and port[1:].isdigit())):
            return None
        return _address(inside)
    host, colon, port = text.partition(":")
    if colon and ":" not in port:  # IPv4 with a port (IPv6 has more than one colon)
        return _address(host) if port.isdigit() else None
    return _address(text)


def _forwarded_for(element: str) -> Address | None:
    """The address of one Forwarded element's ``for=`` ("for=192.0.2.60;proto=http")."""
    values = []
    for pair in element.split(";"):
        name, equals, value = pair.strip().partition("=")
        if equals and name.strip().lower() == "for":
            values.append(value.strip())
    if len(values) != 1:
        return None
    value = values[0]
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]  # a quoted-string; an escape (backslash) is in no address
    return _node(value)


def _walk(hops: list[Address | None], peer: Address, trusted: TrustedProxies) -> Address:
    nearest = peer
    for hop in reversed(hops):
        if hop is None:
            return nearest
        if hop not in trusted:
            return hop
        nearest = hop
    return nearest  # every hop a trusted proxy: the left-most


def _header(metadata: Iterable[tuple[str, object]], name: str) -> str | None:
    """Every line of one header, in order, as one list (RFC 9110 5.3); None when absent."""
    lines = [value if isinstance(value, str) else "" for key, value in metadata
             if key.lower() == name]
    return ", ".join(lines) if lines else None


def caller_host(peer: str, metadata: Iterable[tuple[str, object]],
                trusted: TrustedProxies) -> str:
    """The caller's address, from the direct peer's host ("10.0.0.5"; "" or "unix:..." when it
    has none) and the call's metadata or HTTP headers.

    Both headers present: they must name the same caller, else the caller is the peer. A proxy
    writes one of them and passes the other through as the client sent it (ingress-nginx and
    Envoy write X-Forwarded-For and leave a client's Forwarded alone), so preferring either one
    would let a client forge its address through a proxy that writes the other."""
    direct = _address(peer)
    if direct is None or direct not in trusted:
        return peer if direct is None else str(direct)
    metadata = tuple(metadata)
    found = set()
    forwarded = _header(metadata, "forwarded")
    if forwarded is not None:
        found.add(_walk([_forwarded_for(e) for e in parse_http_list(forwarded)] or [None],
                        direct, trusted))
    x_forwarded_for = _header(metadata, "x-forwarded-for")
    if x_forwarded_for is not None:
        found.add(_walk([_node(hop) for hop in x_forwarded_for.split(",")], direct, trusted))
    return str(found.pop()) if len(found) == 1 else str(direct)
