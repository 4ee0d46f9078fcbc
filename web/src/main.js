// Sanma in the browser: the boot. The screens are their own modules - the start card
// (start.js), the table (game.js, its panels overlay.js, its menu and the Rules sheet menu.js),
// the seat's answers (actions.js), a match's socket and leaving it (match.js), the clicks' and
// keys' command tables (input.js) - over one declared state (app.js).
// settings.js and rooms.js come first: their document listeners run before input.js's.
import { initSettings } from "./settings.js";
import { initRooms } from "./rooms.js";
import { initQuick } from "./quick.js";
import { currentMatch, ensureToken, newToken } from "./api.js";
import { app, firstScreen } from "./app.js";
import { earlyCurrent, takeEarlySocket } from "./early.js";
import { announce, renderGame, rerender, setSpeed, show } from "./game.js";
import { loadI18n, t } from "./i18n.js";
import { inRoom } from "./render/table.js";
import "./input.js";
import { connect, withAccount } from "./match.js";
import { initSound } from "./sound.js";

async function boot() {
  initSound();
  initSettings({
    botSpeed: () => app.speed,
    setBotSpeed: setSpeed,
    roomPace: inRoom, // a friend room's pace is the room's
    changed: rerender,
  });
  // The dictionaries and the guest's current match are fetched side by side: one round trip
  // less before the first table.
  const dictionaries = loadI18n();
  const known = ensureToken();
  const asked = known.then((token) => (earlyCurrent?.token === token ? earlyCurrent.answer : currentMatch(token)));
  asked.catch(() => {}); // an error is met below, after the dictionaries
  await dictionaries;
  try {
    let current = await asked;
    if (current.unauthorized) current = await currentMatch(await newToken());
    Promise.race([firstScreen, new Promise((resolve) => setTimeout(resolve, 2000))]).then(() => withAccount(() => {}));
    // Friend rooms: an invite link opens its lobby; a room match in play is resumed first.
    const viewFrom = (seat) => {
      app.state.seat = seat;
      if (app.screen === "game") renderGame();
    };
    initQuick({ enterMatch: (match) => connect(match) });
    const rooms = await initRooms({ enterMatch: (match) => connect(match), viewFrom });
    if (app.conn) return; // the invited room was already playing, with this guest seated: it is open
    const resume = rooms.lobby ? null : rooms.match || current.match;
    if (resume) {
      connect(resume, true);
      announce(t("game.resumed")); // the page came back to a match in play: say so
      return;
    }
  } catch (err) {
    console.warn(err);
  }
  takeEarlySocket(null); // the current match is not opened: the socket to it closes
  show("start");
}

boot();
