"""Outgoing mail: the one-time codes of e-mail linking, account recovery and account deletion.

With ``SANMA_SMTP_HOST`` set, messages go out over SMTP with an async client (aiosmtplib;
STARTTLS when offered or as ``SANMA_SMTP_STARTTLS`` says, login when a user is set).
Without it, each message is written as an ``.eml`` file to ``<data_dir>/outbox/`` and its
path logged, so a developer's ``./run.sh`` needs no mail server.  The log never holds a whole
address: ``masked`` shows it as the owner's hint does (``a***l@example.org``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Literal, Protocol

import aiosmtplib

from sanma.server.settings import Settings
from sanma.store.accounts import email_hint

log = logging.getLogger("sanma.mail")

Purpose = Literal["link", "recover", "delete"]
Lang = Literal["en", "id", "ja", "ru"]


class Mailer(Protocol):
    """Something that delivers a message (or raises)."""

    async def send(self, message: EmailMessage) -> None:
        """Deliver ``message``."""


class SmtpMailer:
    """Delivery over SMTP with the settings' host, port, login and STARTTLS choice."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def send(self, message: EmailMessage) -> None:
        """Deliver ``message`` (raises ``aiosmtplib.SMTPException`` or ``OSError`` on failure)."""
        s = self.settings
        await aiosmtplib.send(
            message,
            hostname=s.smtp_host,
            port=s.smtp_port,
            username=s.smtp_user,
            password=s.smtp_password,
            start_tls=s.smtp_starttls,
            use_tls=s.smtp_port == 465,
            timeout=20,
        )


class OutboxMailer:
    """The embedded default: each message becomes a file in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def send(self, message: EmailMessage) -> None:
        """Write ``message`` as ``<UTC time>-<random>.eml`` and log the path."""
        name = f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(4)}.eml"
        path = self.folder / name
        await asyncio.to_thread(_write, path, message.as_bytes())
        log.warning("mail to %s written to %s (no SANMA_SMTP_HOST set)", masked(str(message["To"])), path)


_ADDRESS = re.compile(r"[^\s<>@'\",;:()\[\]]+@[^\s<>@'\",;:()\[\]]+")


def masked(text: str) -> str:
    """``text`` with every e-mail address in it masked, for the log.

    >>> masked("to Annabel@Example.org: refused")
    'to a***l@example.org: refused'
    """
    return _ADDRESS.sub(lambda m: email_hint(m.group(0)), text)


def _write(path: Path, data: bytes) -> None:
    # Written beside it under another name, then renamed: whoever watches the outbox for
    # ``*.eml`` never reads a half-written message.
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(path)


def mailer_for(settings: Settings) -> Mailer:
    """SMTP when a host is set, else the outbox under the data folder."""
    if settings.smtp_host:
        return SmtpMailer(settings)
    return OutboxMailer(settings.data_dir / "outbox")


_TEXT: dict[tuple[Lang, Purpose], tuple[str, str]] = {
    ("en", "link"): (
        "Sanma: your code to link this address",
        "Your code to link this e-mail address to your Sanma account is:\n\n    {code}\n\n"
        "It works once, for {minutes} minutes. If you did not ask for it, ignore this message.\n",
    ),
    ("en", "recover"): (
        "Sanma: your code to recover your account",
        "Your code to sign this browser in to your Sanma account is:\n\n    {code}\n\n"
        "It works once, for {minutes} minutes. The browser that used the account before will be "
        "signed out. If you did not ask for it, ignore this message.\n",
    ),
    ("en", "delete"): (
        "Sanma: your code to delete your account",
        "Your code to delete your Sanma account is:\n\n    {code}\n\n"
        "It works once, for {minutes} minutes. Deleting cannot be undone: your name, coins, "
        "cosmetics and history go. If you did not ask for it, ignore this message.\n",
    ),
    ("id", "link"): (
        "Sanma: kode untuk menautkan alamat ini",
        "Kode untuk menautkan alamat e-mail ini ke akun Sanma-mu:\n\n    {code}\n\n"
        "Kode ini berlaku sekali, selama {minutes} menit. Jika kamu tidak memintanya, abaikan pesan ini.\n",
    ),
    ("id", "recover"): (
        "Sanma: kode untuk memulihkan akunmu",
        "Kode untuk masuk ke akun Sanma-mu di peramban ini:\n\n    {code}\n\n"
        "Kode ini berlaku sekali, selama {minutes} menit. Peramban yang memakai akun ini sebelumnya "
        "akan dikeluarkan. Jika kamu tidak memintanya, abaikan pesan ini.\n",
    ),
    ("id", "delete"): (
        "Sanma: kode untuk menghapus akunmu",
        "Kode untuk menghapus akun Sanma-mu:\n\n    {code}\n\n"
        "Kode ini berlaku sekali, selama {minutes} menit. Penghapusan tidak bisa dibatalkan: nama, koin, "
        "kosmetik, dan riwayatmu hilang. Jika kamu tidak memintanya, abaikan pesan ini.\n",
    ),
    ("ja", "link"): (
        "Sanma: メールアドレス連携のコード",
        "このメールアドレスを Sanma のアカウントに連携するためのコードです:\n\n    {code}\n\n"
        "使えるのは一度だけ、有効期限は {minutes} 分です。心当たりがない場合は、このメールを無視してください。\n",
    ),
    ("ja", "recover"): (
        "Sanma: アカウント復旧のコード",
        "このブラウザで Sanma のアカウントにサインインするためのコードです:\n\n    {code}\n\n"
        "使えるのは一度だけ、有効期限は {minutes} 分です。これまでこのアカウントを使っていたブラウザは"
        "サインアウトされます。心当たりがない場合は、このメールを無視してください。\n",
    ),
    ("ja", "delete"): (
        "Sanma: アカウント削除のコード",
        "Sanma のアカウントを削除するためのコードです:\n\n    {code}\n\n"
        "使えるのは一度だけ、有効期限は {minutes} 分です。削除は取り消せません。名前、コイン、"
        "見た目のアイテム、履歴がすべて消えます。心当たりがない場合は、このメールを無視してください。\n",
    ),
    ("ru", "link"): (
        "Sanma: код для привязки этого адреса",
        "Ваш код для привязки этого адреса почты к аккаунту Sanma:\n\n    {code}\n\n"
        "Он действует один раз, {minutes} мин. Если вы его не запрашивали, просто не обращайте внимания "
        "на это письмо.\n",
    ),
    ("ru", "recover"): (
        "Sanma: код для восстановления аккаунта",
        "Ваш код для входа в аккаунт Sanma в этом браузере:\n\n    {code}\n\n"
        "Он действует один раз, {minutes} мин. Браузер, в котором аккаунт был открыт раньше, выйдет из "
        "него. Если вы его не запрашивали, просто не обращайте внимания на это письмо.\n",
    ),
    ("ru", "delete"): (
        "Sanma: код для удаления аккаунта",
        "Ваш код для удаления аккаунта Sanma:\n\n    {code}\n\n"
        "Он действует один раз, {minutes} мин. Удаление нельзя отменить: имя, монеты, оформление и "
        "история пропадут. Если вы его не запрашивали, просто не обращайте внимания на это письмо.\n",
    ),
}


def code_message(sender: str, to: str, code: str, purpose: Purpose, lang: Lang, ttl_s: float) -> EmailMessage:
    """The message that carries ``code`` to ``to``, in ``lang``."""
    subject, body = _TEXT[(lang, purpose)]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="sanma.local")
    message.set_content(body.format(code=code, minutes=max(1, round(ttl_s / 60))))
    message["Content-Language"] = lang  # after set_content, which drops the Content-* headers
    return message
