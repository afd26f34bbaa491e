/* The lesson page: language choice (?lang=, #<lang>-<Scene>, remembered in
   localStorage) and presenter mode (?present=1 or P) by keys and touch.
   The projected window shows only the clip and its captions; S opens the
   speaker window (this page with ?speaker=1), which the two windows keep in
   step by postMessage (it works from file://, where every page is its own
   origin, so each side checks who sent a message instead of where from: the
   window it opened or was opened by, and the secret the two share).
   The place is kept in the hash (#en-WorkedExample/3) and resumed on reload.
   The data (texts, clips, beats) is the JSON in #lesson-data: a page opened
   from file:// cannot fetch files.  Its texts are a colleague's data: they
   reach the page as text (textContent, text nodes), never as markup.
   Learner mode: a clip stops at each checkpoint (the end of the beat before the one that shows the answer),
   asks, keeps the answer (localStorage, or the learning platform in a course package) and plays on.  In a
   course package (DATA.scorm) the page reports to the platform's SCORM 1.2 API when it finds one.
   Descriptions: with the "describe" switch on (remembered), each beat's description (its clip's descriptions
   track) is spoken by the browser's speech synthesis in the page's language as the clip plays into it; when
   it runs past the beat's end (the next narration), the clip waits for it and plays on when it ends. */
(function () {
  'use strict';
  var DATA = JSON.parse(document.getElementById('lesson-data').textContent);
  var KEY = 'qkv-lens.lang';
  var PARAMS = new URLSearchParams(window.location.search);
  var VIEW = PARAMS.get('speaker') === '1';   /* this window is the speaker window */
  var TOUCH = navigator.maxTouchPoints > 0 || window.matchMedia('(pointer: coarse)').matches;
  var KEYBOARD = !window.matchMedia('(pointer: coarse)').matches || window.matchMedia('(any-pointer: fine)').matches;
  var STATES = ['ready', 'playing', 'done'];
  var SECRET = /^[0-9a-f]{32}$/;
  /* a paused beat is shown a hair inside its edges: at its very start the cue of the beat before (which ends
     there) is still shown beside its own, and the frame drawn may be the last of the beat before */
  var HAIR = 0.002;
  /* where messages may go: this page's origin when served; from file:// (each page its own origin) anywhere */
  var TARGET = window.location.protocol === 'file:' || window.location.origin === 'null' ? '*' : window.location.origin;
  var S = { lang: DATA.first, presenting: false, scene: 0, beat: 0, status: 'ready', stopAt: null,
            captions: true, blank: false, started: 0, speaker: null, link: null, revealed: false,
            learner: true, asking: null };

  function $(sel) { return document.querySelector(sel); }
  function stored() { try { return window.localStorage.getItem(KEY); } catch (e) { return null; } }
  function remember(lang) { try { window.localStorage.setItem(KEY, lang); } catch (e) { /* private mode */ } }
  function valid(lang) { return DATA.langs.indexOf(lang) >= 0; }
  function ui(key) { return DATA.ui[S.lang][key]; }
  function fill(text, fields) {
    return text.replace(/\{(\w+)\}/g, function (m, name) { return name in fields ? String(fields[name]) : m; });
  }
  /* a text of runs (page.math_runs: strings, and {sub: ...} for a subscript) into el, as text */
  function setRuns(el, runs) {
    el.textContent = '';
    runs.forEach(function (r) {
      if (typeof r === 'string') { el.appendChild(document.createTextNode(r)); return; }
      var sub = document.createElement('sub');
      sub.textContent = r.sub;
      el.appendChild(sub);
    });
  }

  function showLang(lang, keep) {
    if (!valid(lang)) return;
    S.lang = lang;
    document.querySelectorAll('section.lesson').forEach(function (s) { s.hidden = s.lang !== lang; });
    document.querySelectorAll('nav.langs button').forEach(function (b) {
      b.setAttribute('aria-pressed', String(b.dataset.lang === lang)); });
    document.querySelectorAll('video').forEach(function (v) { if (v.closest('[hidden]')) v.pause(); });
    hush();
    document.querySelectorAll('[data-t]').forEach(function (el) { el.textContent = ui(el.dataset.t); });
    document.querySelectorAll('[data-t-label]').forEach(function (el) {
      el.setAttribute('aria-label', ui(el.dataset.tLabel)); });
    document.documentElement.lang = lang;
    document.body.dataset.lang = lang;
    document.title = VIEW ? ui('speaker') + ' · ' + ui('title') : ui('title');
    if (keep) remember(lang);
  }

  /* the key help: only what this device has (keys with a keyboard, gestures with touch) */
  function help() {
    var parts = [];
    if (KEYBOARD) {
      parts.push(ui('key_step'), ui('key_back'), ui('key_ends'), ui('key_clip'));
      if (DATA.asking) parts.push(ui('key_answer'));
      if (!VIEW) parts.push(ui('key_goto'));   /* the overview opens on the class's screen */
      parts.push(ui('key_blank'), ui('key_captions'));
      if (document.fullscreenEnabled) parts.push(ui('key_full'));
      if (!VIEW) parts.push(ui('key_speaker'), ui('key_leave'));
    }
    if (TOUCH && !VIEW) parts.push(ui('touch_step'), ui('touch_back'), ui('touch_leave'));
    return parts.join(' · ');
  }

  /* presenter mode */
  function clips() { return DATA.clips[S.lang]; }
  function clip() { return clips()[S.scene]; }
  function figure() { return document.getElementById(S.lang + '-' + clip().scene); }
  function video() { return figure().querySelector('video'); }
  function beat() { return clip().beats[S.beat]; }
  function place() { return '#' + S.lang + '-' + clip().scene + '/' + S.beat; }

  function setHash(hash) {
    if (window.location.hash === hash) return;
    try { window.history.replaceState(window.history.state, '', hash); } catch (e) { window.location.replace(hash); }
  }

  /* The speaker window is one this window opened, under a random name (never a name another page could
     have given a window first), and the two share a random secret that every message carries (the
     speaker window gets it in its URL's fragment).  Name and secret are kept in history.state, which a
     reload keeps and no other page can write (another file:// page can seed sessionStorage and name
     the window it opens), so a reloaded window finds its speaker window again. */
  function secret() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (x) { return ('0' + x.toString(16)).slice(-2); }).join('');
  }
  function keptLink() {
    var k = window.history.state && window.history.state.speaker;
    return k && SECRET.test(k.name) && SECRET.test(k.token) ? { name: k.name, token: k.token } : null;
  }
  function keepLink() {
    if (!S.link) return;
    try { window.history.replaceState({ speaker: S.link }, ''); } catch (e) { /* kept until a reload */ }
  }

  function status() {   /* the state as the live region and the speaker window say it */
    var s = ui(S.status);
    if (S.blank) s += ' · ' + ui('blanked');
    if (!S.captions) s += ' · ' + ui('captions_off');
    return s;
  }

  function where() {
    var c = clip();
    return c.title + ' · ' + fill(ui('step'), { n: S.beat + 1, total: c.beats.length }) + ' · ' + status();
  }

  function paint() {   /* the speaker panel (in the speaker window) */
    var c = clip(), b = beat(), next = c.beats[S.beat + 1], panel = $('#speaker');
    panel.querySelector('.title').textContent = c.title;
    panel.querySelector('.step').textContent = fill(ui('step'), { n: S.beat + 1, total: c.beats.length });
    panel.querySelector('.state').textContent = status();
    setRuns(panel.querySelector('.say'), b.say);
    setRuns(panel.querySelector('.question'), c.ask);
    panel.querySelector('.cp').hidden = !b.ask;   /* the checkpoint and its answer, for the speaker only */
    if (b.ask) { setRuns(panel.querySelector('.cp-q'), b.ask.q); panel.querySelector('.cp-a').textContent = b.ask.shown; }
    if (next) setRuns(panel.querySelector('.next'), next.say);
    else panel.querySelector('.next').textContent =
      S.scene + 1 < clips().length ? ui('next_clip') + ' ' + clips()[S.scene + 1].title : ui('last');
    panel.querySelector('.keys').textContent = help();
    tick();
  }

  function tick() {
    var s = Math.max(0, Math.floor((Date.now() - S.started) / 1000));
    $('#speaker .timer .t').textContent = S.started ? Math.floor(s / 60) + ':' + ('0' + s % 60).slice(-2) : '0:00';
    $('#speaker .clock .t').textContent = new Date().toLocaleTimeString(S.lang, { hour: '2-digit', minute: '2-digit' });
  }

  function send() {
    if (!S.speaker || S.speaker.closed) return;
    S.speaker.postMessage({ qkv: 'state', lang: S.lang, scene: S.scene, beat: S.beat, status: S.status,
                            blank: S.blank, captions: S.captions, started: S.started, revealed: S.revealed,
                            token: S.link.token }, TARGET);
  }

  function show() {
    var c = clip();
    document.body.dataset.beat = c.scene + '/' + S.beat;
    document.body.dataset.state = S.status;
    document.querySelectorAll('figure.current').forEach(function (f) { f.classList.remove('current'); });
    figure().classList.add('current');
    /* a clip cued at its start shows its question to the class until it plays; a beat after a checkpoint
       shows the checkpoint (its choices, never its answer until A reveals it) */
    var q = S.status === 'ready' ? beat().ask : null, card = !!q || (S.beat === 0 && S.status === 'ready');
    document.body.classList.toggle('card', card);
    document.body.dataset.card = q ? 'ask' : card ? 'clip' : '';
    if (card) {
      $('#card .title').textContent = c.title;
      setRuns($('#card .question'), q ? q.q : c.ask);
      var list = $('#card .choices');
      list.textContent = '';
      ((q && q.choices) || []).forEach(function (runs, k) {
        var li = document.createElement('li');
        setRuns(li, runs);
        if (S.revealed && k === q.answer) li.className = 'right';
        list.appendChild(li);
      });
      $('#card .round').textContent = q && !q.choices ? rounding(q) : '';
      $('#card .answer').textContent = q && S.revealed ? ui('cp_answer') + ' ' + q.shown : '';
    }
    $('#live').textContent = q ? where() + ' · ' + plain(q.q) + (S.revealed ? ' · ' + ui('cp_answer') + ' ' + q.shown : '')
                               : where();
    setHash(place());
    send();
  }

  function stop() {
    var v = video();
    S.stopAt = null;
    v.pause();
  }

  /* where a paused beat is shown: a hair after its start, or a hair before its end */
  function inside(b, at) {
    var half = (b.end - b.start) / 2;
    return at === 'end' ? b.end - Math.min(HAIR, half) : b.start + Math.min(HAIR, half);
  }

  function watch() {
    if (S.stopAt === null) return;
    var v = video();
    if (v.ended || v.currentTime >= S.stopAt - 0.02) {
      stop();
      var last = inside(beat(), 'end');
      if (v.ended || v.currentTime > last) v.currentTime = last;
      S.status = 'done';
      show();
      return;
    }
    window.requestAnimationFrame(watch);
  }

  function cue(scene, index, at) {
    if (S.stopAt !== null) stop();
    var old = video();
    S.scene = scene;
    S.beat = index;
    S.revealed = false;
    var v = video(), b = beat();
    if (old !== v) old.pause();
    v.preload = 'auto';
    v.currentTime = inside({ start: b.start, end: Math.min(b.end, v.duration || b.end) }, at);
    S.status = at === 'end' ? 'done' : 'ready';
    show();
  }

  function play() {
    var v = video(), b = beat();
    if (v.currentTime < b.start - 0.05 || v.currentTime >= b.end - 0.05) v.currentTime = inside(b, 'start');
    S.stopAt = b.end;
    S.status = 'playing';
    show();
    var p = v.play();
    if (p && p.catch) p.catch(function () { S.stopAt = null; S.status = 'ready'; show(); });
    window.requestAnimationFrame(watch);
  }

  function forward() {
    if (S.status === 'ready') { play(); return; }
    if (S.beat + 1 < clip().beats.length) {   /* a beat after a checkpoint waits on its question */
      cue(S.scene, S.beat + 1, 'start');
      if (!beat().ask) play();
      return;
    }
    if (S.scene + 1 < clips().length) cue(S.scene + 1, 0, 'start');  /* the next clip waits on its title card */
  }

  function back() {
    if (S.beat > 0) cue(S.scene, S.beat - 1, 'start');
    else if (S.scene > 0) cue(S.scene - 1, clips()[S.scene - 1].beats.length - 1, 'start');
    else cue(0, 0, 'start');
  }

  function toClip(i) { if (i >= 0 && i < clips().length) cue(i, 0, 'start'); }

  function captions() {   /* the subtitles (the descriptions track is spoken, never shown) */
    document.querySelectorAll('video').forEach(function (v) {
      for (var i = 0; i < v.textTracks.length; i++) {
        if (v.textTracks[i].kind === 'subtitles') v.textTracks[i].mode = S.captions ? 'showing' : 'hidden';
      }
    });
  }

  /* the key help: while it shows, the clip ends above it, so it never covers a caption */
  function setHelp(on) {
    document.body.classList.toggle('help', on);
    document.body.style.setProperty('--help', (on ? $('#help').getBoundingClientRect().height : 0) + 'px');
  }

  function setBlank(on) { S.blank = on; document.body.classList.toggle('blank', on); show(); }

  function fullscreen() {
    if (!document.fullscreenEnabled) return;
    if (document.fullscreenElement) document.exitFullscreen();
    else document.documentElement.requestFullscreen().catch(function () { /* refused: stay windowed */ });
  }

  function openSpeaker() {
    if (S.speaker && !S.speaker.closed) { S.speaker.focus(); send(); return; }
    if (!S.link) { S.link = { name: secret(), token: secret() }; keepLink(); }
    var url = window.location.href.split('#')[0].split('?')[0] + '?speaker=1#' + S.link.token;
    S.speaker = window.open(url, 'qkv-lens-speaker-' + S.link.name, 'popup,width=960,height=600');
    if (!S.speaker) $('#live').textContent = ui('blocked');
  }

  /* the overview of the clips (O), with a clip number to go to (G) */
  function overview(number) {
    var box = $('#overview'), list = box.querySelector('ol');
    list.textContent = '';
    clips().forEach(function (c, i) {
      var li = document.createElement('li'), b = document.createElement('button');
      b.type = 'button';
      b.textContent = c.title;
      if (i === S.scene) b.setAttribute('aria-current', 'true');
      b.addEventListener('click', function () { closeOverview(); toClip(i); });
      li.appendChild(b);
      list.appendChild(li);
    });
    var input = box.querySelector('input');
    input.max = String(clips().length);
    input.value = '';
    box.hidden = false;
    (number ? input : list.querySelectorAll('button')[S.scene]).focus();
  }

  function closeOverview() { $('#overview').hidden = true; }

  var COMMANDS = {
    ArrowRight: forward, ' ': forward, PageDown: forward, ArrowLeft: back, PageUp: back,
    Home: function () { cue(S.scene, 0, 'start'); },
    End: function () { cue(S.scene, clip().beats.length - 1, 'end'); },
    n: function () { toClip(S.scene + 1); }, ArrowDown: function () { toClip(S.scene + 1); },
    ArrowUp: function () { toClip(S.scene - 1); },
    b: function () { setBlank(!S.blank); }, '.': function () { setBlank(!S.blank); },
    c: function () { S.captions = !S.captions; captions(); show(); },
    f: fullscreen, g: function () { overview(true); }, o: function () { overview(false); },
    s: openSpeaker, h: function () { setHelp(true); }, '?': function () { setHelp(true); },
    a: function () { if (beat().ask && S.status === 'ready') { S.revealed = true; show(); } },
    p: leave, Escape: leave
  };
  /* what the speaker window may ask of this one */
  var FORWARDED = ['ArrowRight', ' ', 'PageDown', 'ArrowLeft', 'PageUp', 'Home', 'End', 'n', 'ArrowDown', 'ArrowUp',
                   'b', '.', 'c', 'a'];

  function command(key) {
    var k = key.length === 1 ? key.toLowerCase() : key, run = COMMANDS[k];
    if (!run) return false;
    if (k === 'Escape' && document.body.classList.contains('help')) { setHelp(false); return true; }
    setHelp(false);
    if (S.blank && k !== 'b' && k !== '.' && k !== 'f') { setBlank(false); return true; }  /* any key lights it again */
    run();
    return true;
  }

  function sceneIndex(name) {
    for (var i = 0; i < clips().length; i++) if (clips()[i].scene === name) return i;
    return -1;
  }

  function visibleScene() {
    var list = clips();
    for (var i = 0; i < list.length; i++) {
      var f = document.getElementById(S.lang + '-' + list[i].scene);
      if (f && f.getBoundingClientRect().bottom > 80) return i;
    }
    return 0;
  }

  function enter(scene, index) {
    if (!clips().length) return;
    closeAsk();
    S.presenting = true;
    S.started = Date.now();
    document.body.classList.add('presenting');
    $('#help').textContent = help();
    setHelp(true);
    document.querySelectorAll('video').forEach(function (v) { v.pause(); v.removeAttribute('controls'); });
    captions();
    cue(scene, Math.min(index || 0, clips()[scene].beats.length - 1), 'start');
  }

  function leave() {
    if (S.stopAt !== null) stop();
    var f = figure();
    S.presenting = false;
    S.blank = false;
    closeOverview();
    setHelp(false);
    document.body.classList.remove('presenting', 'card', 'blank');
    delete document.body.dataset.card;
    document.querySelectorAll('figure.current').forEach(function (x) { x.classList.remove('current'); });
    document.querySelectorAll('video').forEach(function (v) { v.setAttribute('controls', ''); });
    delete document.body.dataset.beat;
    delete document.body.dataset.state;
    $('#live').textContent = '';
    setHash('#' + S.lang + '-' + clip().scene);
    if (document.fullscreenElement) document.exitFullscreen();
    f.scrollIntoView();
  }

  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = e.key;
    if (S.asking) { askKey(e); return; }   /* the question's buttons and field have the keys */
    if (!$('#overview').hidden) {
      if (k === 'Escape') { closeOverview(); e.preventDefault(); }
      return;   /* the overview's buttons and number field have the keys */
    }
    if (!S.presenting) {
      if (k === 'p' || k === 'P') { e.preventDefault(); enter(visibleScene(), 0); }
      return;
    }
    if (command(k)) e.preventDefault();
  }

  /* touch: a tap or a swipe to the left steps on, a swipe to the right steps back */
  var touchAt = null;
  function onTouchStart(e) {
    document.body.classList.add('touch');
    touchAt = null;
    if (!S.presenting || e.touches.length !== 1 || e.target.closest('button, input, #overview')) return;
    touchAt = { x: e.touches[0].clientX, y: e.touches[0].clientY };
  }
  function onTouchMove(e) { if (touchAt && e.cancelable) e.preventDefault(); }   /* no scrolling, no history swipe */
  function onTouchEnd(e) {
    if (S.presenting && e.target.closest('#exit')) { leave(); e.preventDefault(); return; }
    if (!touchAt || !S.presenting) return;
    var t = e.changedTouches[0], dx = t.clientX - touchAt.x, dy = t.clientY - touchAt.y;
    touchAt = null;
    if (Math.abs(dx) < 30 && Math.abs(dy) < 30) command('ArrowRight');
    else if (Math.abs(dx) > 2 * Math.abs(dy)) command(dx < 0 ? 'ArrowRight' : 'ArrowLeft');
    else return;
    if (e.cancelable) e.preventDefault();   /* no click after it */
  }

  function fromHash() {
    var m = /^#([a-z]+)-(\w+)(?:\/(\d+))?$/.exec(window.location.hash);
    return m && valid(m[1]) ? { lang: m[1], scene: m[2], beat: m[3] === undefined ? null : Number(m[3]) } : null;
  }

  /* the speaker window: shows what the presenting window sends, sends it the keys; only with the
     secret of its URL's fragment (opened by hand, without one, it follows nothing) */
  function speakerView() {
    var token = window.location.hash.slice(1);
    document.body.classList.add('speaker-view');
    showLang(DATA.first, false);
    S.started = 0;
    if (!SECRET.test(token)) return;
    window.addEventListener('message', function (e) {
      var d = e.data;
      if (e.source !== window.opener || !d || d.token !== token || d.qkv !== 'state' || !valid(d.lang)) return;
      var list = DATA.clips[d.lang];
      if (!(d.scene >= 0 && d.scene < list.length && d.beat >= 0 && d.beat < list[d.scene].beats.length)) return;
      if (d.lang !== S.lang) showLang(d.lang, false);
      S.scene = d.scene; S.beat = d.beat; S.blank = d.blank === true; S.captions = d.captions !== false;
      S.status = STATES.indexOf(d.status) >= 0 ? d.status : 'ready';
      S.started = typeof d.started === 'number' ? d.started : 0;
      S.revealed = d.revealed === true;
      S.presenting = true;
      document.body.dataset.beat = clip().scene + '/' + S.beat;
      document.body.dataset.state = S.status;
      paint();
    });
    document.addEventListener('keydown', function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey || !window.opener) return;
      var k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (k === 'f') { fullscreen(); e.preventDefault(); return; }
      if (FORWARDED.indexOf(k) < 0) return;
      window.opener.postMessage({ qkv: 'key', key: k, token: token }, TARGET);
      e.preventDefault();
    }, true);
    window.setInterval(function () { if (S.presenting) tick(); }, 1000);
    function hello() { if (window.opener) window.opener.postMessage({ qkv: 'hello', token: token }, TARGET); }
    hello();
    window.setInterval(hello, 2000);   /* finds the presenting window again after it reloads */
  }

  /* while `qkv-lens watch` runs: poll build.js (a script, so it works from file://) and reload,
     at the same place (the hash), when the page was built again */
  function follow() {
    if (!DATA.live) return;
    var polls = 0;
    window.setInterval(function () {
      var s = document.createElement('script');
      function done() { s.remove(); document.body.dataset.polls = String(++polls); }   /* for tests: polls done */
      s.src = 'build.js?' + Date.now();
      s.onload = function () {
        done();
        if (window.qkvBuild && window.qkvBuild !== DATA.build) location.reload();
      };
      s.onerror = done;
      document.head.appendChild(s);
    }, 1500);
  }


  /* -- learner mode: a clip stops at each checkpoint and asks ------------------------------------------ */

  var ANSWERS = 'qkv-lens.answers.' + DATA.id, LEARNER = 'qkv-lens.learner';
  var NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
  var MAX_RESPONSE = 16;   /* characters of a number as typed (the field's maxlength; page.py and scorm.py too) */
  var answers = {};        /* '<lang>/<Scene>/<beat id>' -> the answer given: a choice as written, or a number */

  function plain(runs) { return runs.map(function (r) { return typeof r === 'string' ? r : r.sub; }).join(''); }
  function uiIn(lang, key) { return DATA.ui[lang][key]; }
  function rounding(q) {
    return q.places === 0 ? ui('cp_whole') : q.places === 1 ? ui('cp_place') : fill(ui('cp_places'), { places: q.places });
  }
  /* a number as typed (a point or a comma before the decimals), or null */
  function typed(text) {
    var t = String(text).replace(/\s/g, '').replace(',', '.').replace('\u2212', '-');
    return NUMBER.test(t) && t.length <= MAX_RESPONSE && isFinite(Number(t)) ? t : null;
  }
  function isRight(q, given) {
    if (typeof given !== 'string') return false;
    if (q.choices) return given === q.options[q.answer];
    var t = typed(given);
    return t !== null && Math.abs(Number(t) - q.number) <= 0.5 * Math.pow(10, -q.places) + 1e-9;
  }
  function checkpoints(c) {   /* a clip's checkpoints: the beat, where the clip stops (a hair before it) */
    var out = [];
    c.beats.forEach(function (b, i) {
      if (b.ask) out.push({ i: i, id: b.id, start: b.start, at: Math.max(0, b.start - HAIR), ask: b.ask });
    });
    return out;
  }
  function answerKey(lang, c, cp) { return lang + '/' + c.scene + '/' + cp.id; }
  function given(lang, c, cp) {
    var a = answers[answerKey(lang, c, cp)];
    return typeof a === 'string' ? a : null;
  }
  function tally(lang, c) {
    var cps = checkpoints(c), right = 0;
    cps.forEach(function (cp) { if (isRight(cp.ask, given(lang, c, cp))) right++; });
    return { right: right, total: cps.length };
  }
  function readAnswers() {
    try {
      var a = JSON.parse(window.localStorage.getItem(ANSWERS) || '{}');
      return a && typeof a === 'object' && !Array.isArray(a) ? a : {};
    } catch (e) { return {}; }
  }
  function keepAnswers() {
    if (LMS.api) return;   /* the platform keeps them */
    try { window.localStorage.setItem(ANSWERS, JSON.stringify(answers)); } catch (e) { /* private mode */ }
  }
  function learning() { return DATA.asking && (S.learner || !!DATA.scorm) && !S.presenting; }

  function clipFor(v) {
    var section = v.closest('section.lesson'), lang = section && section.lang, list = DATA.clips[lang] || [];
    for (var i = 0; i < list.length; i++) if (list[i].scene === v.dataset.scene) return { lang: lang, clip: list[i], n: i };
    return null;
  }

  /* the score under each clip: "2 of 3 right" */
  function scores() {
    document.querySelectorAll('figure .cp-score').forEach(function (p) {
      var v = p.parentNode.querySelector('video'), found = v && clipFor(v);
      if (!found) return;
      var t = tally(found.lang, found.clip);
      p.textContent = fill(uiIn(found.lang, 'cp_score'), t);
      p.hidden = !(S.learner || DATA.scorm);
    });
  }

  /* while a clip plays in learner mode, it stops where an unanswered checkpoint is (played into, not jumped over) */
  function guard(v) {
    var found = clipFor(v);
    if (!found || !checkpoints(found.clip).length) return;
    v.addEventListener('seeking', function () { v.qkvSought = true; });
    v.addEventListener('play', function () {
      if (S.asking && S.asking.v !== v) closeAsk();
      v.qkvPrev = v.currentTime;
      v.qkvSought = false;
      if (learning()) window.requestAnimationFrame(step);
    });
    function step() {
      if (v.paused || v.ended || !learning()) return;
      var t = v.currentTime, prev = v.qkvSought ? t : v.qkvPrev;
      v.qkvSought = false;
      v.qkvPrev = t;
      var due = checkpoints(found.clip).filter(function (cp) {
        return given(found.lang, found.clip, cp) === null && prev <= cp.at + 1e-3 && t >= cp.at - 0.03;
      });
      if (due.length) { ask(v, found, due[0]); return; }
      window.requestAnimationFrame(step);
    }
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function ask(v, found, cp) {
    closeAsk();
    v.pause();
    v.currentTime = cp.at;
    var q = cp.ask, id = 'cp-' + found.lang + '-' + found.clip.scene, lang = found.lang;
    var box = el('div', 'checkpoint'), heading = el('p', 'cp-heading', uiIn(lang, 'cp_heading'));
    var question = el('p', 'cp-question'), verdict = el('p', 'cp-verdict'), hint = el('p', 'cp-hint');
    var go = el('button', 'cp-continue', uiIn(lang, 'cp_continue'));
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-labelledby', id + '-h');
    box.setAttribute('aria-describedby', id + '-q');
    heading.id = id + '-h';
    question.id = id + '-q';
    setRuns(question, q.q);
    box.appendChild(heading);
    box.appendChild(question);
    var first;
    if (q.choices) {
      var group = el('div', 'cp-choices');
      group.setAttribute('role', 'group');
      group.setAttribute('aria-labelledby', id + '-q');
      q.choices.forEach(function (runs, k) {
        var b = el('button', 'choice'), n = el('span', 'n', String(k + 1)), t = el('span', 't');
        b.type = 'button';
        b.dataset.i = String(k);
        setRuns(t, runs);
        b.appendChild(n);
        b.appendChild(t);
        b.addEventListener('click', function () { answer(q.options[k]); });
        group.appendChild(b);
      });
      box.appendChild(group);
      hint.textContent = uiIn(lang, 'cp_choose');
      first = group.querySelector('button');
    } else {
      var form = el('form', 'cp-number'), label = el('label'), input = el('input'), check = el('button', '', uiIn(lang, 'cp_check'));
      input.type = 'text';
      input.inputMode = 'decimal';
      input.maxLength = MAX_RESPONSE;
      input.autocomplete = 'off';
      input.id = id + '-n';
      label.htmlFor = input.id;
      label.textContent = uiIn(lang, 'cp_your') + ' (' + rounding(q) + ')';
      check.type = 'submit';
      form.appendChild(label);
      form.appendChild(input);
      form.appendChild(check);
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var t = typed(input.value);
        if (t === null) { hint.textContent = uiIn(lang, 'cp_not_number'); $('#cp-live').textContent = hint.textContent; input.focus(); return; }
        answer(t);
      });
      box.appendChild(form);
      first = input;
    }
    box.appendChild(hint);
    box.appendChild(verdict);
    go.type = 'button';
    go.hidden = true;
    go.addEventListener('click', resume);
    box.appendChild(go);
    v.parentNode.insertBefore(box, v.nextSibling);
    S.asking = { v: v, lang: lang, clip: found.clip, cp: cp, box: box, done: false };
    document.body.dataset.asking = found.clip.scene + '/' + cp.i;
    $('#cp-live').textContent = uiIn(lang, 'cp_heading') + ': ' + plain(q.q);
    first.focus();
    box.scrollIntoView({ block: 'nearest' });
  }

  function answer(response) {
    var a = S.asking;
    if (!a || a.done) return;
    var q = a.cp.ask, right = isRight(q, response), lang = a.lang;
    a.done = true;
    answers[answerKey(lang, a.clip, a.cp)] = response;
    keepAnswers();
    a.box.querySelectorAll('button.choice, input').forEach(function (b) { b.disabled = true; });
    a.box.querySelectorAll('.cp-number button').forEach(function (b) { b.disabled = true; });
    if (q.choices) {
      var chosen = a.box.querySelector('button.choice[data-i="' + q.options.indexOf(response) + '"]');
      if (chosen) { chosen.classList.add('chosen'); chosen.setAttribute('aria-pressed', 'true'); }
    }
    var verdict = a.box.querySelector('.cp-verdict');
    verdict.textContent = '';
    verdict.appendChild(el('b', '', uiIn(lang, right ? 'cp_right' : 'cp_wrong')));
    if (!right) { var why = el('span'); setRuns(why, q.wrong); verdict.appendChild(document.createTextNode(' ')); verdict.appendChild(why); }
    a.box.querySelector('.cp-hint').textContent = '';
    a.box.classList.add(right ? 'right' : 'wrong');
    document.body.dataset.answered = right ? 'right' : 'wrong';
    $('#cp-live').textContent = verdict.textContent;
    scores();
    lmsAnswer(a.clip, a.cp, response, right);
    var go = a.box.querySelector('.cp-continue');
    go.hidden = false;
    go.focus();
  }

  function resume() {   /* the beat after the checkpoint shows the answer */
    var a = S.asking;
    if (!a) return;
    closeAsk();
    a.v.focus();
    var p = a.v.play();
    if (p && p.catch) p.catch(function () { /* the learner plays it */ });
  }

  function closeAsk() {
    if (!S.asking) return;
    S.asking.box.remove();
    S.asking = null;
    delete document.body.dataset.asking;
  }

  /* keys while a question is open: a digit picks that choice; Tab and Enter work the buttons and the field */
  function askKey(e) {
    var a = S.asking, q = a.cp.ask;
    if (a.done || !q.choices || e.altKey || e.ctrlKey || e.metaKey || e.target.tagName === 'INPUT') return;
    var n = /^[1-9]$/.test(e.key) ? Number(e.key) - 1 : -1;
    if (n >= 0 && n < q.options.length) { answer(q.options[n]); e.preventDefault(); }
  }

  function setLearner(on, keep) {
    S.learner = on;
    var box = $('#learner input');
    if (box) box.checked = on;
    if (!on) closeAsk();
    if (keep) { try { window.localStorage.setItem(LEARNER, on ? '1' : '0'); } catch (e) { /* private mode */ } }
    scores();
  }

  /* -- descriptions spoken aloud: the "describe" switch ------------------------------------------------- */

  var DESCRIBE = 'qkv-lens.describe';
  var D = { on: false, speaking: null };   /* speaking: the description being spoken: {v, end, held} */
  var SPEECH = 'speechSynthesis' in window && typeof window.SpeechSynthesisUtterance === 'function';

  function descriptions(v) {
    for (var i = 0; i < v.textTracks.length; i++) if (v.textTracks[i].kind === 'descriptions') return v.textTracks[i];
    return null;
  }
  /* a description as it is said: its runs as text, a subscript after a space (W_Q is "W Q") */
  function sayable(runs) { return runs.map(function (r) { return typeof r === 'string' ? r : ' ' + r.sub; }).join(''); }

  function hush() {   /* stop the description being spoken (a seek, the switch turned off, another language) */
    var s = D.speaking;
    D.speaking = null;
    delete document.body.dataset.describing;
    if (s && SPEECH) window.speechSynthesis.cancel();
  }

  function say(v, cue) {
    var found = clipFor(v), b = found && found.clip.beats[Number(cue.id.slice(1))];
    if (!b || !b.describe) return;
    hush();
    var s = { v: v, end: cue.endTime, held: false };
    var u = new window.SpeechSynthesisUtterance(sayable(b.describe));
    u.lang = found.lang;
    u.addEventListener('end', function () { said(s); });
    u.addEventListener('error', function () { said(s); });
    D.speaking = s;
    v.qkvSaid = cue;
    document.body.dataset.describing = 'speaking';
    window.speechSynthesis.speak(u);
    window.requestAnimationFrame(function hold() {   /* the clip waits at the beat's end while it is said */
      if (D.speaking !== s || s.held) return;
      /* played into its end (a seek past it is no reason to wait: the seek stops the voice) */
      if (!S.presenting && !v.paused && !v.seeking && v.currentTime >= s.end - 0.05 && v.currentTime < s.end + 0.5) {
        s.held = true;
        v.pause();
        document.body.dataset.describing = 'held';
        return;
      }
      window.requestAnimationFrame(hold);
    });
  }

  function said(s) {   /* a description ended: a clip that waited for it plays on */
    if (D.speaking !== s) return;
    D.speaking = null;
    delete document.body.dataset.describing;
    if (s.held && !S.presenting) {
      var p = s.v.play();
      if (p && p.catch) p.catch(function () { /* the learner plays it */ });
    }
  }

  function current(v, track) {   /* the description the clip is in now, not yet said on this pass */
    if (!D.on || v.paused || !track.activeCues || !track.activeCues.length) return;
    var cue = track.activeCues[track.activeCues.length - 1];
    if (cue !== v.qkvSaid) say(v, cue);
  }

  function setDescribe(on, keep) {
    D.on = on && SPEECH;
    var box = $('#describe input');
    if (box) box.checked = D.on;
    document.querySelectorAll('video').forEach(function (v) {
      var t = descriptions(v);
      if (t) t.mode = D.on ? 'hidden' : 'disabled';   /* hidden: its cues are active, never drawn */
    });
    if (!D.on) hush();
    if (keep) { try { window.localStorage.setItem(DESCRIBE, on ? '1' : '0'); } catch (e) { /* private mode */ } }
  }

  function startDescribe() {
    var box = $('#describe input');
    if (!box) return;
    if (!SPEECH) { $('#describe').hidden = true; return; }   /* no voice here: the transcript has them */
    document.querySelectorAll('section.lesson video[data-scene]').forEach(function (v) {
      var t = descriptions(v);
      if (!t) return;
      t.addEventListener('cuechange', function () { current(v, t); });
      v.addEventListener('play', function () { current(v, t); });
      v.addEventListener('seeking', function () {
        v.qkvSaid = null;
        if (D.speaking && D.speaking.v === v) hush();
      });
    });
    var kept = null;
    try { kept = window.localStorage.getItem(DESCRIBE); } catch (e) { /* private mode */ }
    setDescribe(kept === '1', false);
    box.addEventListener('change', function () { setDescribe(box.checked, true); });
  }

  /* -- a course package: the learning platform's SCORM 1.2 API ----------------------------------------- */

  /* suspend_data: "1;<lesson id>;<clips watched, 0/1 each>;<clip>,<tenths of a second, rounded down: a resume
     starts before a checkpoint the learner stopped at>;<answers>", the answers
     in the order of the lesson's checkpoints, "|" between them: a choice's index, a number as typed, "" when
     not answered.  At most 4096 characters: qkv_lens.app.scorm refuses a lesson whose answers could not fit. */
  var LMS = { api: null, watched: {}, place: null, count: 0, started: 0, finished: false };

  function findAPI() {   /* window.API in this window, its parents, its opener and the opener's parents */
    function up(w) {
      for (var n = 0; w && n < 16; n++) {
        try { if (w.API && typeof w.API.LMSInitialize === 'function') return w.API; } catch (e) { /* another origin */ }
        var parent;
        try { parent = w.parent; } catch (e) { return null; }
        if (!parent || parent === w) return null;
        w = parent;
      }
      return null;
    }
    var opener = null;
    try { opener = window.opener; } catch (e) { /* none */ }
    return up(window) || (opener ? up(opener) : null);
  }
  function lmsGet(key) { try { return String(LMS.api.LMSGetValue(key) || ''); } catch (e) { return ''; } }
  function lmsSet(key, value) { try { LMS.api.LMSSetValue(key, String(value)); } catch (e) { /* refused */ } }
  function lessonAsks() {   /* every checkpoint of the package's lesson, in order */
    var out = [];
    clips().forEach(function (c) { checkpoints(c).forEach(function (cp) { out.push({ clip: c, cp: cp }); }); });
    return out;
  }
  function pack() {
    var list = clips(), place = LMS.place ? LMS.place.n + ',' + Math.floor(LMS.place.t * 10) : '';
    var watched = list.map(function (c) { return LMS.watched[c.scene] ? '1' : '0'; }).join('');
    var given_ = lessonAsks().map(function (x) {
      var g = given(S.lang, x.clip, x.cp);
      if (g === null) return '';
      return x.cp.ask.choices ? String(Math.max(0, x.cp.ask.options.indexOf(g))) : (typed(g) || '');
    });
    return ['1', DATA.id, watched, place, given_.join('|')].join(';');
  }
  function unpack(text) {
    var parts = text.split(';');
    if (parts.length !== 5 || parts[0] !== '1' || parts[1] !== DATA.id) return;
    var list = clips(), asks = lessonAsks(), given_ = parts[4] === '' && !asks.length ? [] : parts[4].split('|');
    list.forEach(function (c, i) { if (parts[2].charAt(i) === '1') LMS.watched[c.scene] = true; });
    var m = /^(\d+),(\d+)$/.exec(parts[3]);
    if (m && Number(m[1]) < list.length) LMS.place = { n: Number(m[1]), t: Number(m[2]) / 10 };
    if (given_.length !== asks.length) return;
    asks.forEach(function (x, i) {
      var g = given_[i], q = x.cp.ask;
      if (g === '') return;
      if (q.choices) { if (/^[0-7]$/.test(g) && Number(g) < q.options.length) answers[answerKey(S.lang, x.clip, x.cp)] = q.options[Number(g)]; }
      else if (typed(g) !== null) answers[answerKey(S.lang, x.clip, x.cp)] = g;
    });
  }
  function report() {
    if (!LMS.api || LMS.finished) return;
    var list = clips(), right = 0, total = 0;
    lessonAsks().forEach(function (x) { total++; if (isRight(x.cp.ask, given(S.lang, x.clip, x.cp))) right++; });
    var watched = list.every(function (c) { return LMS.watched[c.scene]; });
    if (total) lmsSet('cmi.core.score.raw', Math.round(100 * right / total));
    lmsSet('cmi.core.lesson_status', !watched ? 'incomplete' : !total ? 'completed'
           : right / total >= DATA.scorm.pass - 1e-9 ? 'passed' : 'failed');
    lmsSet('cmi.suspend_data', pack());
    if (LMS.place) lmsSet('cmi.core.lesson_location', list[LMS.place.n].scene + '/' + (Math.floor(LMS.place.t * 10) / 10).toFixed(1));
    try { LMS.api.LMSCommit(''); } catch (e) { /* the platform's concern */ }
  }
  function clockTime(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    return [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map(function (x) { return ('0' + x).slice(-2); }).join(':');
  }
  function lmsAnswer(c, cp, response, right) {
    if (!LMS.api) return;
    var q = cp.ask, p = 'cmi.interactions.' + LMS.count + '.', letter = function (k) { return 'abcdefgh'.charAt(k); };
    lmsSet(p + 'id', c.scene + '-' + cp.id);
    lmsSet(p + 'type', q.choices ? 'choice' : 'numeric');
    lmsSet(p + 'student_response', q.choices ? letter(q.options.indexOf(response)) : response);
    lmsSet(p + 'correct_responses.0.pattern', q.choices ? letter(q.answer) : q.shown);
    lmsSet(p + 'result', right ? 'correct' : 'wrong');
    lmsSet(p + 'weighting', '1');
    var now = new Date();
    lmsSet(p + 'time', clockTime(now.getHours() * 3600 + now.getMinutes() * 60 + now.getSeconds()));
    LMS.count++;
    report();
  }
  function lmsFinish() {
    if (!LMS.api || LMS.finished) return;
    var watched = clips().every(function (c) { return LMS.watched[c.scene]; });
    lmsSet('cmi.core.exit', watched ? '' : 'suspend');
    lmsSet('cmi.core.session_time', clockTime((Date.now() - LMS.started) / 1000));
    report();
    LMS.finished = true;
    try { LMS.api.LMSFinish(''); } catch (e) { /* the platform's concern */ }
  }
  function lmsStart() {
    var api = DATA.scorm ? findAPI() : null;
    if (!api) return;
    try { if (String(api.LMSInitialize('')) !== 'true') return; } catch (e) { return; }
    LMS.api = api;
    LMS.started = Date.now();
    LMS.count = Number(lmsGet('cmi.interactions._count')) || 0;
    unpack(lmsGet('cmi.suspend_data'));
    if (lessonAsks().length) { lmsSet('cmi.core.score.min', '0'); lmsSet('cmi.core.score.max', '100'); }
    report();   /* what the learner did before, against this package's pass score */
    clips().forEach(function (c, n) {
      var f = document.getElementById(S.lang + '-' + c.scene), v = f && f.querySelector('video');
      if (!v) return;
      v.addEventListener('ended', function () { LMS.watched[c.scene] = true; LMS.place = { n: n, t: v.duration || 0 }; report(); });
      v.addEventListener('pause', function () { if (!v.ended) { LMS.place = { n: n, t: v.currentTime }; report(); } });
    });
    window.addEventListener('pagehide', lmsFinish);
    window.addEventListener('beforeunload', lmsFinish);
    if (LMS.place) {   /* resume where the learner stopped */
      var c = clips()[LMS.place.n], f = document.getElementById(S.lang + '-' + c.scene), v = f.querySelector('video');
      f.scrollIntoView();
      v.preload = 'auto';
      v.currentTime = LMS.place.t;
      document.body.dataset.resumed = c.scene + '/' + LMS.place.t.toFixed(1);
    }
  }

  function startLearner() {
    answers = DATA.scorm ? {} : readAnswers();
    var kept = null;
    try { kept = window.localStorage.getItem(LEARNER); } catch (e) { /* private mode */ }
    S.learner = kept !== '0';
    var box = $('#learner input');
    if (box) {
      box.checked = S.learner;
      box.addEventListener('change', function () { setLearner(box.checked, true); });
    }
    document.querySelectorAll('section.lesson video[data-scene]').forEach(guard);
    lmsStart();
    scores();
  }

  function start() {
    follow();
    if (VIEW) { speakerView(); return; }
    var asked = PARAMS.get('lang'), hash = fromHash();
    if (valid(asked)) { showLang(asked, true); }
    else if (hash) { showLang(hash.lang, false); }
    else { showLang(valid(stored()) ? stored() : DATA.first, false); }
    document.body.classList.toggle('touch', TOUCH);
    document.querySelectorAll('nav.langs button').forEach(function (b) {
      b.addEventListener('click', function () { showLang(b.dataset.lang, true); });
    });
    $('#present-btn').addEventListener('click', function (e) {
      e.currentTarget.blur();
      enter(visibleScene(), 0);
    });
    $('#exit').addEventListener('click', function () { if (S.presenting) leave(); });
    $('#overview input').addEventListener('keydown', function (e) {
      if (e.key !== 'Enter') return;
      var n = parseInt(e.currentTarget.value, 10);
      closeOverview();
      if (n >= 1) toClip(n - 1);
      e.preventDefault();
    });
    startLearner();
    startDescribe();
    document.addEventListener('keydown', onKey, true);
    window.addEventListener('resize', function () { if (document.body.classList.contains('help')) setHelp(true); });
    document.addEventListener('touchstart', onTouchStart, { passive: true });
    document.addEventListener('touchmove', onTouchMove, { passive: false });
    document.addEventListener('touchend', onTouchEnd, { passive: false });
    S.link = keptLink();
    window.addEventListener('message', function (e) {
      var d = e.data;
      if (!S.link || !d || typeof d !== 'object' || d.token !== S.link.token || !e.source) return;
      if (!S.speaker && d.qkv === 'hello' && e.source.opener === window) {
        S.speaker = e.source;   /* the speaker window of this window before a reload */
      }
      if (e.source !== S.speaker) return;
      if (d.qkv === 'hello' && S.presenting) send();
      else if (d.qkv === 'key' && S.presenting && FORWARDED.indexOf(d.key) >= 0) command(d.key);
    });
    window.addEventListener('hashchange', function () {
      keepLink();   /* a link followed on the page made a history entry without it */
      var h = fromHash();
      if (!h || S.presenting) return;
      if (h.lang !== S.lang) showLang(h.lang, false);
      var f = document.getElementById(S.lang + '-' + h.scene);
      if (f) f.scrollIntoView();
    });
    var at = hash ? sceneIndex(hash.scene) : -1;
    if (at >= 0 && hash.beat !== null) { enter(at, hash.beat); }   /* a presenter's place: resume there */
    else if (PARAMS.get('present') === '1') { enter(Math.max(at, 0), 0); }
    else if (at >= 0) { document.getElementById(S.lang + '-' + hash.scene).scrollIntoView(); }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
