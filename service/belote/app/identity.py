"""Registered players: the site's identity provider signs a JWT (HS256) naming the player.

A guest has a display name only. A registered player sends ``x-player-token: <jwt>``; its
``sub`` claim is the player's id, and ``exp`` is required. The key is the server's
``BELOTE_AUTH_SECRET``: a server without one accepts no player token.
"""

from __future__ import annotations

import jwt

from . import errors as err

MAX_PLAYER_ID = 128


class Identity:
    def __init__(self, secret: str | None):
        self._secret = secret or None

    def player_id(self, token: str | None) -> str:
        """The player a token names; "" for a guest (no token). UNAUTHENTICATED for a bad one."""
        if not token:
            return ""
        if self._secret is None:
            raise err.unauthenticated("this server accepts no player tokens")
        try:
            claims = jwt.decode(token, self._secret, algorithms=["HS256"],
                                options={"require": ["sub", "exp"]})
        except jwt.ExpiredSignatureError:
            raise err.unauthenticated("your player token has expired: sign in again") from None
        except jwt.InvalidSignatureError:
            raise err.unauthenticated("your player token's signature is not valid") from None
        except jwt.InvalidTokenError as e:
            raise err.unauthenticated(f"your player token is not valid: {e}") from None
        player = claims["sub"]
        if not isinstance(player, str) or not 1 <= len(player) <= MAX_PLAYER_ID:
            raise err.unauthenticated(f"your player token's sub must be 1 to {MAX_PLAYER_ID} characters")
        return player
