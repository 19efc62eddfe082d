"""The rule of who a caller is (api/callers.py): the direct peer, or behind trusted proxies the
right-most address of their chain (Forwarded, else X-Forwarded-For) that is not one of them;
a malformed value never becomes an identity of its own."""

from __future__ import annotations

import pytest
from belote.api.callers import TrustedProxies, caller_host

PROXIES = TrustedProxies.parse("10.0.0.0/8, 2001:db8:f::/48")
PROXY = "10.0.0.1"


def xff(*values: str) -> tuple[tuple[str, str], ...]:
    return tuple(("x-forwarded-for", v) for v in values)


def fwd(*values: str) -> tuple[tuple[str, str], ...]:
    return tuple(("forwarded", v) for v in values)


# Who is trusted ------------------------------------------------------------------------------
@pytest.mark.parametrize("peer", ["127.0.0.1", "203.0.113.7", "::1", "", "unix:/run/belote.sock"])
def test_with_no_trusted_proxy_the_caller_is_the_direct_peer_whatever_it_forwards(peer):
    metadata = xff("198.51.100.1") + fwd("for=192.0.2.1")
    assert caller_host(peer, metadata, TrustedProxies()) == peer


@pytest.mark.parametrize("peer", ["11.0.0.1", "203.0.113.7", "2001:db8:e::1", "", "unix:/x"])
def test_a_peer_outside_the_trusted_networks_is_the_caller_whatever_it_forwards(peer):
    assert caller_host(peer, xff("198.51.100.1") + fwd("for=192.0.2.1"), PROXIES) == peer


def test_a_trusted_peer_with_no_header_is_the_caller_itself():
    assert caller_host(PROXY, (("authorization", "Bearer t"),), PROXIES) == PROXY


# X-Forwarded-For -----------------------------------------------------------------------------
@pytest.mark.parametrize(("chain", "caller"), [
    ("203.0.113.7", "203.0.113.7"),
    # What the client wrote itself is left of what the proxy appended: never read.
    ("198.51.100.99, 203.0.113.7", "203.0.113.7"),
    ("garbage, 203.0.113.7", "203.0.113.7"),
    # Proxies in the chain are skipped, from the right.
    ("203.0.113.7, 10.0.0.3,10.0.0.2", "203.0.113.7"),
    # Every hop a trusted proxy: the left-most.
    ("10.0.0.3, 10.0.0.2", "10.0.0.3"),
    # Ports and brackets, and one spelling per address.
    ("203.0.113.7:4711", "203.0.113.7"),
    ("[2001:db8::17]:4711", "2001:db8::17"),
    ("[2001:DB8:0:0::17]", "2001:db8::17"),
    ("2001:db8::17", "2001:db8::17"),
    ("::ffff:203.0.113.7", "203.0.113.7"),
    ("fe80::1%eth0", "fe80::1"),
])
def test_x_forwarded_for_names_the_right_most_address_that_is_not_a_trusted_proxy(chain, caller):
    assert caller_host(PROXY, xff(chain), PROXIES) == caller


@pytest.mark.parametrize(("chain", "caller"), [
    # A hop the proxies do not name plainly: the nearest trusted proxy, never the value itself.
    ("203.0.113.7, garbage", PROXY),
    ("203.0.113.7, unknown, 10.0.0.2", "10.0.0.2"),
    ("", PROXY),
    ("203.0.113.7,", PROXY),
    ("203.000.113.7", PROXY),          # leading zeros: not an address ipaddress accepts
    ("203.0.113.7:port", PROXY),
    ("[2001:db8::17", PROXY),
    ("999.0.113.7", PROXY),
    ("example.com", PROXY),
])
def test_a_malformed_hop_counts_as_the_nearest_trusted_proxy(chain, caller):
    assert caller_host(PROXY, xff(chain), PROXIES) == caller


def test_several_header_lines_are_one_chain_in_order():
    assert caller_host(PROXY, xff("198.51.100.1", "203.0.113.7"), PROXIES) == "203.0.113.7"
    assert caller_host(PROXY, xff("203.0.113.7", "10.0.0.2"), PROXIES) == "203.0.113.7"


def test_header_names_are_read_whatever_their_case():
    assert caller_host(PROXY, (("X-Forwarded-For", "203.0.113.7"),), PROXIES) == "203.0.113.7"
    assert caller_host(PROXY, (("Forwarded", "For=203.0.113.8"),), PROXIES) == "203.0.113.8"


# Forwarded (RFC 7239) ------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "caller"), [
    ("for=203.0.113.7", "203.0.113.7"),
    ("for=192.0.2.60;proto=http;by=203.0.113.43", "192.0.2.60"),
    ('for="[2001:db8:cafe::17]:4711"', "2001:db8:cafe::17"),
    ('for="192.0.2.43:47011"', "192.0.2.43"),
    ("for=198.51.100.99, for=203.0.113.7;proto=https", "203.0.113.7"),
    ('for=203.0.113.7, for="[2001:db8:f::2]"', "203.0.113.7"),     # a trusted v6 proxy skipped
    ("FOR=203.0.113.7", "203.0.113.7"),
    # Not an address: the nearest trusted proxy.
    ("for=unknown", PROXY),
    ('for="_gazonk"', PROXY),
    ("proto=https;by=10.0.0.9", PROXY),                       # no for=
    ("for=203.0.113.7;for=198.51.100.1", PROXY),               # two of them
    ('for="203.0.113.7, 198.51.100.1"', PROXY),                # one quoted value, not two hops
    ("for=", PROXY),
    ("garbage", PROXY),
])
def test_forwarded_names_the_right_most_for_that_is_not_a_trusted_proxy(value, caller):
    assert caller_host(PROXY, fwd(value), PROXIES) == caller


def test_with_both_headers_they_must_name_the_same_caller_else_it_is_the_proxy():
    """A proxy writes one of them and passes the other through as the client sent it
    (ingress-nginx writes X-Forwarded-For and leaves a client's Forwarded alone), so neither
    may win over the other: when they disagree one is the client's own, and the caller is the
    proxy that can be seen."""
    agree = xff("198.51.100.99, 203.0.113.7") + fwd("for=203.0.113.7")
    assert caller_host(PROXY, agree, PROXIES) == "203.0.113.7"
    spoofed = xff("203.0.113.7") + fwd("for=198.51.100.1")
    assert caller_host(PROXY, spoofed, PROXIES) == PROXY
    assert caller_host(PROXY, fwd("for=203.0.113.7") + xff("198.51.100.1"), PROXIES) == PROXY


# The direct peer -----------------------------------------------------------------------------
def test_a_trusted_peer_is_matched_and_answered_in_one_spelling():
    assert caller_host("::ffff:10.0.0.1", xff("203.0.113.7"), PROXIES) == "203.0.113.7"
    assert caller_host("2001:db8:f::1", xff("203.0.113.7"), PROXIES) == "203.0.113.7"
    assert caller_host("::ffff:10.0.0.1", (), PROXIES) == PROXY
    assert caller_host("::ffff:11.0.0.1", xff("203.0.113.7"), PROXIES) == "11.0.0.1"


# The setting ---------------------------------------------------------------------------------
def test_trusted_proxies_are_a_comma_separated_list_of_networks():
    assert TrustedProxies.parse("") == TrustedProxies()
    assert not TrustedProxies.parse(" , ")
    proxies = TrustedProxies.parse("127.0.0.1/32, 10.244.0.0/16,::1")
    assert [str(n) for n in proxies.networks] == ["127.0.0.1/32", "10.244.0.0/16", "::1/128"]
    assert "10.244.3.4" in proxies and "::1" in proxies and "::ffff:127.0.0.1" in proxies
    assert "10.245.0.1" not in proxies and "unix:/x" not in proxies and "" not in proxies


NOT_A_NETWORK = "not a network (a CIDR such as 10.0.0.0/8): "


@pytest.mark.parametrize(("text", "said"), [
    ("10.0.0.1/8", "10.0.0.1/8 has host bits set"),
    ("nonsense", "'nonsense' does not appear to be an IPv4 or IPv6 network"),
    ("10.0.0.0/8, 10.0.0.0/33", "'10.0.0.0/33' does not appear to be an IPv4 or IPv6 network"),
])
def test_a_bad_network_is_refused_by_name(text, said):
    with pytest.raises(ValueError) as refused:
        TrustedProxies.parse(text)
    assert str(refused.value) == NOT_A_NETWORK + said
