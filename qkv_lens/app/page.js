/* The lesson page: language choice (?lang=, #<lang>-<Scene>, remembered in
   localStorage) and presenter mode (?present=1 or P), keyboard only.
   The data (texts, clips, beats) is the JSON in #lesson-data: a page opened
   from file:// cannot fetch files. */
(function () {
  'use strict';
  var DATA = JSON.parse(document.getElementById('lesson-data').textContent);
  var KEY = 'qkv-lens.lang';
  var S = { lang: DATA.first, presenting: false, scene: 0, beat: 0, status: 'ready', stopAt: null, speaker: true };

  function stored() { try { return window.localStorage.getItem(KEY); } catch (e) { return null; } }
  function remember(lang) { try { window.localStorage.setItem(KEY, lang); } catch (e) { /* private mode */ } }
  function valid(lang) { return DATA.langs.indexOf(lang) >= 0; }
  function ui(key) { return DATA.ui[S.lang][key]; }
  function fill(text, fields) {
    return text.replace(/\{(\w+)\}/g, function (m, name) { return name in fields ? String(fields[name]) : m; });
  }

  function showLang(lang, keep) {
    if (!valid(lang)) return;
    S.lang = lang;
    document.querySelectorAll('section.lesson').forEach(function (s) { s.hidden = s.lang !== lang; });
    document.querySelectorAll('nav.langs button').forEach(function (b) {
      b.setAttribute('aria-pressed', String(b.dataset.lang === lang)); });
    document.querySelectorAll('video').forEach(function (v) { if (v.closest('[hidden]')) v.pause(); });
    document.querySelectorAll('[data-t]').forEach(function (el) { el.textContent = ui(el.dataset.t); });
    document.documentElement.lang = lang;
    document.body.dataset.lang = lang;
    document.title = ui('title');
    if (keep) remember(lang);
  }

  /* presenter mode */
  function clips() { return DATA.clips[S.lang]; }
  function clip() { return clips()[S.scene]; }
  function figure() { return document.getElementById(S.lang + '-' + clip().scene); }
  function video() { return figure().querySelector('video'); }
  function beat() { return clip().beats[S.beat]; }

  function show() {
    var c = clip(), b = beat(), n = c.beats.length, next = c.beats[S.beat + 1];
    document.body.dataset.beat = c.scene + '/' + S.beat;
    document.body.dataset.state = S.status;
    document.querySelectorAll('figure.current').forEach(function (f) { f.classList.remove('current'); });
    figure().classList.add('current');
    var panel = document.getElementById('speaker');
    panel.querySelector('.title').innerHTML = c.title;
    panel.querySelector('.step').textContent = fill(ui('step'), { n: S.beat + 1, total: n });
    panel.querySelector('.state').textContent = ui(S.status);
    panel.querySelector('.say').innerHTML = b.say;
    panel.querySelector('.question').innerHTML = c.ask;
    panel.querySelector('.next').innerHTML = next ? next.say : ui('last');
    panel.querySelector('.think-label').textContent = ui('think');
    panel.querySelector('.next-label').textContent = ui('next');
    panel.querySelector('.keys').textContent = ui('keys');
  }

  function stop() {
    var v = video();
    S.stopAt = null;
    v.pause();
  }

  function watch() {
    if (S.stopAt === null) return;
    var v = video();
    if (v.ended || v.currentTime >= S.stopAt - 0.02) {
      var end = S.stopAt;
      stop();
      if (v.currentTime > end && end < v.duration) v.currentTime = Math.max(beat().start, end - 0.001);
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
    var v = video(), b = beat();
    if (old !== v) old.pause();
    v.preload = 'auto';
    v.currentTime = at === 'end' ? Math.max(b.start, Math.min(b.end, v.duration || b.end) - 0.001) : b.start;
    S.status = at === 'end' ? 'done' : 'ready';
    show();
  }

  function play() {
    var v = video(), b = beat();
    if (v.currentTime < b.start - 0.05 || v.currentTime >= b.end - 0.05) v.currentTime = b.start;
    S.stopAt = b.end;
    S.status = 'playing';
    show();
    var p = v.play();
    if (p && p.catch) p.catch(function () { S.stopAt = null; S.status = 'ready'; show(); });
    window.requestAnimationFrame(watch);
  }

  function forward() {
    if (S.status === 'ready') { play(); return; }
    if (S.beat + 1 < clip().beats.length) { cue(S.scene, S.beat + 1, 'start'); play(); return; }
    if (S.scene + 1 < clips().length) cue(S.scene + 1, 0, 'start');  /* the next clip waits for its question */
  }

  function back() {
    if (S.beat > 0) cue(S.scene, S.beat - 1, 'start');
    else if (S.scene > 0) cue(S.scene - 1, clips()[S.scene - 1].beats.length - 1, 'start');
    else cue(0, 0, 'start');
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

  function enter(scene) {
    if (!clips().length) return;
    S.presenting = true;
    document.body.classList.add('presenting');
    document.body.classList.toggle('speaker-on', S.speaker);
    document.querySelectorAll('video').forEach(function (v) { v.pause(); v.removeAttribute('controls'); });
    cue(scene, 0, 'start');
  }

  function leave() {
    if (S.stopAt !== null) stop();
    var f = figure();
    S.presenting = false;
    document.body.classList.remove('presenting', 'speaker-on');
    document.querySelectorAll('figure.current').forEach(function (x) { x.classList.remove('current'); });
    document.querySelectorAll('video').forEach(function (v) { v.setAttribute('controls', ''); });
    delete document.body.dataset.beat;
    delete document.body.dataset.state;
    f.scrollIntoView();
  }

  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = e.key;
    if (!S.presenting) {
      if (k === 'p' || k === 'P') { e.preventDefault(); enter(visibleScene()); }
      return;
    }
    var last = clips().length - 1;
    if (k === 'ArrowRight' || k === ' ' || k === 'PageDown') forward();
    else if (k === 'ArrowLeft' || k === 'PageUp') back();
    else if (k === 'Home') cue(S.scene, 0, 'start');
    else if (k === 'End') cue(S.scene, clip().beats.length - 1, 'end');
    else if (k === 'n' || k === 'N') { if (S.scene < last) cue(S.scene + 1, 0, 'start'); }
    else if (k === 'b' || k === 'B') { if (S.scene > 0) cue(S.scene - 1, 0, 'start'); }
    else if (k === 's' || k === 'S') {
      S.speaker = !S.speaker;
      document.body.classList.toggle('speaker-on', S.speaker);
    }
    else if (k === 'p' || k === 'P' || k === 'Escape') leave();
    else return;
    e.preventDefault();
  }

  function fromHash() {
    var m = /^#([a-z]+)-(\w+)$/.exec(window.location.hash);
    return m && valid(m[1]) ? { lang: m[1], scene: m[2] } : null;
  }

  function start() {
    var params = new URLSearchParams(window.location.search);
    var asked = params.get('lang'), hash = fromHash();
    if (valid(asked)) { showLang(asked, true); }
    else if (hash) { showLang(hash.lang, false); }
    else { showLang(valid(stored()) ? stored() : DATA.first, false); }
    document.querySelectorAll('nav.langs button').forEach(function (b) {
      b.addEventListener('click', function () { showLang(b.dataset.lang, true); });
    });
    document.getElementById('present-btn').addEventListener('click', function (e) {
      e.currentTarget.blur();
      enter(visibleScene());
    });
    document.addEventListener('keydown', onKey, true);
    window.addEventListener('hashchange', function () {
      var h = fromHash();
      if (!h || S.presenting) return;
      if (h.lang !== S.lang) showLang(h.lang, false);
      var f = document.getElementById(S.lang + '-' + h.scene);
      if (f) f.scrollIntoView();
    });
    var at = hash ? sceneIndex(hash.scene) : -1;
    if (params.get('present') === '1') { enter(Math.max(at, 0)); }
    else if (at >= 0) { document.getElementById(S.lang + '-' + hash.scene).scrollIntoView(); }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
