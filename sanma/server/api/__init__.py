"""The HTTP API: one FastAPI router per capability, all under ``/api``.

``deps.py`` holds what every router shares: the ``Services`` of the app, the signed-in
guest (``Authorization: Bearer <token>``) and ``ApiError`` (the one error shape,
``{"error": code, "detail": text}``).
"""
