// What the account pages share: the token, API calls, texts in both languages, and a DOM
// builder that puts every string in with textContent (names come from other players: never
// parsed as HTML).
import { getLang } from "./i18n.js";

const TOKEN_KEY = "sanma.token";

export const session = {
  getToken: () => localStorage.getItem(TOKEN_KEY),
  setToken: (token) => localStorage.setItem(TOKEN_KEY, token),
  profile: null,
  shop: null,
};

/** One API call; resolves to {status, data} (data: the JSON answer or {}). */
export async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const token = session.getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  return { status: r.status, data };
}

/** Element `tag` with attributes/properties and children (strings become text nodes). */
export function h(tag, props = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "on") for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key === "style") Object.assign(el.style, value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

const TEXTS = {
  en: {
    open: "Account",
    title: "Your account",
    close: "Close",
    "tab.profile": "Profile",
    "tab.shop": "Coins & shop",
    "tab.history": "History",
    "profile.name": "Display name",
    "profile.save": "Save",
    "profile.saved": "Saved.",
    "profile.none": "(no name yet)",
    "email.title": "E-mail (optional, only to recover the account)",
    "email.linked": "Linked: {email}",
    "email.none": "No e-mail linked.",
    "email.send": "Send code",
    "email.address": "E-mail address",
    "email.placeholder": "you@example.org",
    "email.code": "Code from the e-mail",
    "email.verify": "Link",
    "email.sent": "If the address can receive mail, a code is on its way (valid 10 minutes).",
    "email.done": "The address is linked.",
    "recover.title": "Recover an account on this browser",
    "recover.help": "Enter the e-mail linked to your account; the code signs this browser in as that account.",
    "recover.verify": "Recover",
    "recover.done": "Signed in as the recovered account.",
    "warn.unsafe": "This account lives only in this browser. Link an e-mail or export a backup before clearing browser data, or it is lost.",
    "backup.title": "Backup",
    "backup.export": "Export history and account",
    "backup.import": "Import a backup",
    "backup.imported": "Imported {n} matches.",
    "backup.switch": "The backup belongs to another account. Switch this browser to it?",
    "backup.bad": "That file is not a Sanma backup.",
    "coins.balance": "Coins: {n}",
    "coins.checkin": "Daily check-in (+{n})",
    "coins.done": "Checked in today (streak {n}). Come back tomorrow (days change at 00:00 UTC).",
    "coins.granted": "+{n} coins! Streak: {s} days.",
    "coins.note": "Coins come only from the daily check-in and buy looks only; matches never cost or give coins.",
    "shop.buy": "Buy · {n}",
    "shop.equip": "Equip",
    "shop.equipped": "Equipped",
    "shop.tile_back": "Tile backs",
    "shop.cloth": "Table cloths",
    "shop.free": "Free",
    "shop.price": "{n} coins",
    "history.server": "Finished matches",
    "history.local": "Saved in this browser only",
    "history.empty": "No finished matches yet.",
    "history.replay": "Replay",
    "history.you": "you",
    "history.bot": "bot ({level})",
    "history.guest": "player",
    "replay.step": "Step {i} of {n}",
    "replay.prev": "◀ Back",
    "replay.next": "Next ▶",
    "replay.first": "|◀",
    "replay.last": "▶|",
    "replay.close": "Back to the list",
    "replay.first_label": "First step",
    "replay.last_label": "Last step",
    "history.col.when": "Ended",
    "history.col.rules": "Rules",
    "history.col.players": "Players",
    "history.col.placement": "Place",
    "history.col.points": "Points",
    "replay.ev.match_started": "The match begins.",
    "replay.ev.hand_started": "A new hand is dealt.",
    "replay.ev.drew": "{who} draws a tile.",
    "replay.ev.drew_tile": "{who} draws {tile}.",
    "replay.ev.discard": "{who} discards {tile}.",
    "replay.ev.riichi_discard": "{who} discards {tile} and declares riichi.",
    "replay.ev.riichi": "{who}: riichi accepted.",
    "replay.ev.call": "{who} calls {call}.",
    "replay.ev.kita": "{who} sets a North aside (kita).",
    "replay.ev.dora": "New dora indicator: {tile}.",
    "replay.ev.tsumo": "{who} wins by self-draw (tsumo).",
    "replay.ev.ron": "{who} wins on a discard (ron).",
    "replay.ev.match_ended": "The match is over.",
    error: "Something went wrong ({code}).",
    "error.rate_limited": "Too many tries; wait a bit.",
    "error.bad_code": "Wrong or expired code.",
    "error.bad_name": "A name has 1 to 24 characters and no control characters.",
    "error.bad_email": "That is not an e-mail address.",
    "error.email_taken": "Another account has this address: use “Recover” instead.",
    "error.not_enough_coins": "Not enough coins.",
  },
  id: {
    open: "Akun",
    title: "Akun Anda",
    close: "Tutup",
    "tab.profile": "Profil",
    "tab.shop": "Koin & toko",
    "tab.history": "Riwayat",
    "profile.name": "Nama tampilan",
    "profile.save": "Simpan",
    "profile.saved": "Tersimpan.",
    "profile.none": "(belum ada nama)",
    "email.title": "E-mail (opsional, hanya untuk memulihkan akun)",
    "email.linked": "Tertaut: {email}",
    "email.none": "Belum ada e-mail tertaut.",
    "email.send": "Kirim kode",
    "email.address": "Alamat e-mail",
    "email.placeholder": "anda@example.org",
    "email.code": "Kode dari e-mail",
    "email.verify": "Tautkan",
    "email.sent": "Jika alamat itu dapat menerima e-mail, kode sedang dikirim (berlaku 10 menit).",
    "email.done": "Alamat sudah tertaut.",
    "recover.title": "Pulihkan akun di peramban ini",
    "recover.help": "Masukkan e-mail yang tertaut ke akun Anda; kodenya memasukkan peramban ini ke akun itu.",
    "recover.verify": "Pulihkan",
    "recover.done": "Masuk sebagai akun yang dipulihkan.",
    "warn.unsafe": "Akun ini hanya ada di peramban ini. Tautkan e-mail atau ekspor cadangan sebelum menghapus data peramban, atau akun hilang.",
    "backup.title": "Cadangan",
    "backup.export": "Ekspor riwayat dan akun",
    "backup.import": "Impor cadangan",
    "backup.imported": "{n} pertandingan diimpor.",
    "backup.switch": "Cadangan ini milik akun lain. Pindahkan peramban ini ke akun itu?",
    "backup.bad": "Berkas itu bukan cadangan Sanma.",
    "coins.balance": "Koin: {n}",
    "coins.checkin": "Absen harian (+{n})",
    "coins.done": "Sudah absen hari ini (beruntun {n}). Kembali besok (hari berganti pukul 00.00 UTC).",
    "coins.granted": "+{n} koin! Beruntun: {s} hari.",
    "coins.note": "Koin hanya dari absen harian dan hanya untuk tampilan; pertandingan tidak pernah memakai atau memberi koin.",
    "shop.buy": "Beli · {n}",
    "shop.equip": "Pakai",
    "shop.equipped": "Dipakai",
    "shop.tile_back": "Punggung ubin",
    "shop.cloth": "Kain meja",
    "shop.free": "Gratis",
    "shop.price": "{n} koin",
    "history.server": "Pertandingan selesai",
    "history.local": "Hanya tersimpan di peramban ini",
    "history.empty": "Belum ada pertandingan selesai.",
    "history.replay": "Putar ulang",
    "history.you": "Anda",
    "history.bot": "bot ({level})",
    "history.guest": "pemain",
    "replay.step": "Langkah {i} dari {n}",
    "replay.prev": "◀ Mundur",
    "replay.next": "Maju ▶",
    "replay.first": "|◀",
    "replay.last": "▶|",
    "replay.close": "Kembali ke daftar",
    "replay.first_label": "Langkah pertama",
    "replay.last_label": "Langkah terakhir",
    "history.col.when": "Selesai",
    "history.col.rules": "Aturan",
    "history.col.players": "Pemain",
    "history.col.placement": "Peringkat",
    "history.col.points": "Poin",
    "replay.ev.match_started": "Pertandingan dimulai.",
    "replay.ev.hand_started": "Tangan baru dibagikan.",
    "replay.ev.drew": "{who} mengambil ubin.",
    "replay.ev.drew_tile": "{who} mengambil {tile}.",
    "replay.ev.discard": "{who} membuang {tile}.",
    "replay.ev.riichi_discard": "{who} membuang {tile} dan menyatakan riichi.",
    "replay.ev.riichi": "{who}: riichi diterima.",
    "replay.ev.call": "{who} memanggil {call}.",
    "replay.ev.kita": "{who} menyisihkan ubin Utara (kita).",
    "replay.ev.dora": "Penunjuk dora baru: {tile}.",
    "replay.ev.tsumo": "{who} menang dengan tsumo.",
    "replay.ev.ron": "{who} menang dari buangan (ron).",
    "replay.ev.match_ended": "Pertandingan selesai.",
    error: "Terjadi kesalahan ({code}).",
    "error.rate_limited": "Terlalu banyak percobaan; tunggu sebentar.",
    "error.bad_code": "Kode salah atau kedaluwarsa.",
    "error.bad_name": "Nama terdiri dari 1 sampai 24 karakter tanpa karakter kontrol.",
    "error.bad_email": "Itu bukan alamat e-mail.",
    "error.email_taken": "Alamat ini milik akun lain: pakai “Pulihkan”.",
    "error.not_enough_coins": "Koin tidak cukup.",
  },
};

/** The account pages' text for `key` in the current language, {name} filled from `vars`. */
export function tr(key, vars = {}) {
  const lang = getLang() === "en" ? "en" : "id";
  const text = TEXTS[lang][key] ?? TEXTS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/** A refusal's message for the user. */
export function errorText(data, status) {
  const code = data?.error || String(status);
  const key = `error.${code}`;
  return tr(key) === key ? tr("error", { code }) : tr(key);
}

/** The browser's language for mail ("en" or "id"). */
export function mailLang() {
  return getLang() === "en" ? "en" : "id";
}
