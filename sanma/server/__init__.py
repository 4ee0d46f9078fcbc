"""The game server: settings, the HTTP + WebSocket app, practice rooms, the wire protocol.

Only the CLI (``sanma serve``) imports it.  It wires the engine, the bots and the store
together; the protocol is documented in ``docs/protocol.md``, the rest in ``docs/server.md``.
"""
