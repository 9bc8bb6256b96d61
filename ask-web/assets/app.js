// The page of the web presenter. Plain JavaScript, no build step, no outside requests.
// Agent text is only ever inserted with textContent (never as HTML).
"use strict";

const LONG_ANSWER = 2000;
const RECOMMENDED = /\(recommended\)\s*$/i;

const statusLine = document.getElementById("status");
const asksRoot = document.getElementById("asks");
const dialog = document.getElementById("confirm");

// requestId -> { view, root, state } for every ask shown.
const shown = new Map();
let closing = false;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function say(text) {
  statusLine.textContent = text;
}

// Asks a yes/no question in the page's own dialog; resolves to true for Yes.
function confirmWith(text) {
  return new Promise((resolve) => {
    document.getElementById("confirm-text").textContent = text;
    const yes = document.getElementById("confirm-yes");
    const no = document.getElementById("confirm-no");
    const back = document.activeElement;
    const done = (value) => {
      yes.onclick = no.onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      if (back && back.focus) back.focus();
      resolve(value);
    };
    yes.onclick = () => done(true);
    no.onclick = () => done(false);
    dialog.onclose = () => done(false);
    dialog.showModal();
    no.focus();
  });
}

// The optional note on a question's answer: more to say about it, never in its place. A secret
// question's note is typed masked, like its answer.
function noteField(ask, question, id, qi) {
  const input = el("input", {
    type: question.secret ? "password" : "text", id: `${id}-note`, class: "note-text",
    autocomplete: "off",
  });
  const label = el("label", { for: input.id, class: "note-label", text: "Note on this answer (optional)" });
  input.addEventListener("input", () => ask.changed());
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      ask.next(qi);
    }
  });
  const field = el("div", { class: "field note" }, label, input);
  const read = () => (input.value.trim() === "" ? null : input.value);
  return { field, read };
}

// The answer of a question with its note, if any.
function withNote(answer, note) {
  if (answer === null) return null;
  const notes = note.read();
  return notes === null ? answer : { ...answer, notes };
}

// One question's controls and how to read its answer.
function questionPanel(ask, question, qi) {
  const id = `a${ask.index}-q${qi}`;
  const options = question.options || [];
  const panel = el("div", { class: "question" });
  if (question.header) panel.append(el("h2", { text: question.header }));
  const read = {};
  if (options.length === 0) {
    const label = el("label", { for: `${id}-text`, class: "question-text", text: question.question });
    // A secret is typed masked; a path is one line, never checked or completed by the page.
    const oneLine = question.secret || question.kind === "path";
    const area = oneLine
      ? el("input", {
        type: question.secret ? "password" : "text", id: `${id}-text`, class: "other-text",
        autocomplete: "off", spellcheck: "false", autocapitalize: "off",
      })
      : el("textarea", { id: `${id}-text`, rows: 4 });
    if (question.placeholder) area.placeholder = question.placeholder;
    const count = el("div", { class: "count", "aria-live": "polite", id: `${id}-count` });
    area.setAttribute("aria-describedby", count.id);
    area.addEventListener("input", () => {
      updateCount(count, area.value);
      ask.changed();
    });
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        ask.next(qi);
      }
    });
    const note = noteField(ask, question, id, qi);
    panel.append(el("div", { class: "field" }, label, area, count), note.field);
    read.answer = () => {
      const text = area.value;
      return withNote(text.trim() === "" ? null : { answer: text, wasCustom: true, secret: question.secret }, note);
    };
    read.focus = () => area.focus();
    return { panel, read };
  }
  const multi = question.multiSelect;
  const type = multi ? "checkbox" : "radio";
  const fieldset = el("fieldset", {});
  fieldset.append(el("legend", { text: question.question }));
  if (multi) fieldset.append(el("p", { class: "hint", id: `${id}-hint`, text: "Choose any number." }));
  const inputs = [];
  options.forEach((option, oi) => {
    const inputId = `${id}-o${oi}`;
    const input = el("input", { type, name: id, id: inputId, value: String(oi) });
    const text = el("span", { class: "label", id: `${inputId}-label`, text: option.label });
    // The option's name is its label; the description is read as its description.
    input.setAttribute("aria-labelledby", text.id);
    const label = el("label", { for: inputId, class: "option" }, input);
    const body = el("span", {}, text);
    if (RECOMMENDED.test(option.label)) body.append(el("span", { class: "badge", text: "Recommended", "aria-hidden": "true" }));
    const described = [];
    if (option.description) {
      const desc = el("span", { class: "desc", id: `${inputId}-desc`, text: option.description });
      described.push(desc.id);
      body.append(desc);
    }
    if (option.preview) {
      // Shown as written, as text, in a monospace box.
      const preview = el("pre", { class: "preview", id: `${inputId}-preview`, text: option.preview });
      described.push(preview.id);
      body.append(preview);
    }
    if (described.length > 0) input.setAttribute("aria-describedby", described.join(" "));
    label.append(body);
    input.addEventListener("change", () => ask.changed());
    inputs.push(input);
    fieldset.append(label);
  });
  panel.append(fieldset);
  const otherId = `${id}-other`;
  const otherInput = el("input", { type, name: id, id: otherId, value: "other" });
  const otherLabel = el("label", { for: otherId, class: "option" }, otherInput,
    el("span", {}, el("span", { class: "label", text: "Other (type your answer)" })));
  const otherText = el("input", {
    type: question.secret ? "password" : "text", class: "other-text", id: `${otherId}-text`,
    autocomplete: question.secret ? "off" : null, placeholder: question.placeholder || null,
    "aria-label": `Your own answer to: ${question.question}`,
  });
  const count = el("div", { class: "count", "aria-live": "polite", id: `${otherId}-count` });
  otherText.setAttribute("aria-describedby", count.id);
  otherText.addEventListener("input", () => {
    // Typing an answer chooses Other.
    if (otherText.value !== "" && !otherInput.checked) otherInput.checked = true;
    updateCount(count, otherText.value);
    ask.changed();
  });
  otherText.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      ask.next(qi);
    }
  });
  otherInput.addEventListener("change", () => {
    if (otherInput.checked) otherText.focus();
    ask.changed();
  });
  fieldset.append(otherLabel, otherText, count);
  const note = noteField(ask, question, id, qi);
  panel.append(note.field);
  fieldset.addEventListener("keydown", (event) => {
    if (event.target === otherText || event.ctrlKey || event.metaKey || event.altKey) return;
    // 1-9 choose an option, 0 chooses Other, as in the terminal UI.
    if (/^[0-9]$/.test(event.key)) {
      const n = Number(event.key);
      const target = n === 0 ? otherInput : inputs[n - 1];
      if (!target) return;
      event.preventDefault();
      if (multi) target.checked = !target.checked;
      else target.checked = true;
      target.focus();
      if (target === otherInput && target.checked) otherText.focus();
      ask.changed();
    } else if (event.key === "Enter" && event.target.type === type) {
      event.preventDefault();
      ask.next(qi);
    }
  });
  read.answer = () => withNote(choice(), note);
  const choice = () => {
    const other = otherInput.checked ? otherText.value : "";
    if (multi) {
      const chosen = inputs.filter((i) => i.checked).map((i) => options[Number(i.value)].label);
      if (other.trim() !== "") chosen.push(other);
      return chosen.length === 0 ? null : { answer: chosen, wasCustom: other.trim() !== "" };
    }
    if (otherInput.checked) return other.trim() === "" ? null : { answer: other, wasCustom: true, secret: question.secret };
    const picked = inputs.find((i) => i.checked);
    return picked ? { answer: options[Number(picked.value)].label, wasCustom: false } : null;
  };
  read.focus = () => (inputs.find((i) => i.checked) || inputs[0]).focus();
  return { panel, read };
}

// "tester in /home/me/project · asked 3 min ago", for the inbox of many agents.
function askerLine(view) {
  if (!view.agent && !view.cwd) return null;
  const line = el("p", { class: "asker" });
  const who = [view.agent, view.cwd && `in ${view.cwd}`].filter(Boolean).join(" ");
  line.append(el("span", { text: who }));
  const age = el("span", { class: "age", "data-since": String(view.since) });
  updateAge(age);
  line.append(age);
  return line;
}

function updateAge(node) {
  const minutes = Math.floor((Date.now() - Number(node.dataset.since)) / 60000);
  node.textContent = minutes < 1 ? " · asked just now" : ` · asked ${minutes} min ago`;
}

function updateCount(node, text) {
  const n = [...text].length;
  node.textContent = n > LONG_ANSWER ? `${n.toLocaleString("en")} characters: a long answer` : "";
  node.classList.toggle("long", n > LONG_ANSWER);
}

function answerText(answer) {
  return Array.isArray(answer.answer) ? answer.answer.join(", ") : answer.answer;
}

// Builds the form of one waiting ask.
function askForm(view, index) {
  const questions = view.questions;
  const root = el("section", { class: "ask", "aria-label": `Questions ${index + 1}${view.agent ? ` from ${view.agent}` : ""}` });
  const ask = { index, view, root, state: view.state, panels: [] };
  const asker = askerLine(view);
  if (asker) root.append(asker);
  const tabbed = questions.length > 1;
  const tablist = el("div", { class: "tabs", role: "tablist", "aria-label": "Questions" });
  const tabs = [];
  const panels = [];
  let current = 0;

  const review = el("div", { class: "review-panel" });
  const submit = el("button", { type: "button", class: "primary", text: "Submit answers" });
  const cancel = el("button", { type: "button", class: "secondary", text: "Cancel" });

  const answers = () => ask.panels.map((p) => p.read.answer());
  const answeredCount = () => answers().filter((a) => a !== null).length;

  function select(i, focusTab) {
    current = i;
    tabs.forEach((tab, t) => {
      tab.setAttribute("aria-selected", t === i ? "true" : "false");
      tab.tabIndex = t === i ? 0 : -1;
    });
    panels.forEach((panel, p) => (panel.hidden = p !== i));
    if (i === questions.length) renderReview();
    if (focusTab && tabs[i]) tabs[i].focus();
  }

  function renderTabs() {
    const given = answers();
    tabs.forEach((tab, t) => {
      if (t === questions.length) return;
      const q = questions[t];
      const name = q.header || `Question ${t + 1}`;
      const mark = given[t] !== null ? "■" : "□";
      tab.textContent = `${mark} ${name}`;
      tab.setAttribute("aria-label", `${name}, ${given[t] !== null ? "answered" : "not answered"}`);
    });
  }

  function renderReview() {
    const given = answers();
    review.replaceChildren();
    review.append(el("h2", { text: "Review your answers" }));
    const list = el("dl", { class: "review" });
    given.forEach((a, i) => {
      const secret = questions[i].secret;
      list.append(el("dt", { text: questions[i].question }));
      list.append(a === null
        ? el("dd", { class: "open", text: "Not answered yet" })
        : el("dd", { text: a.secret ? "(secret answer, hidden)" : answerText(a) }));
      if (a !== null && a.notes) {
        list.append(el("dd", { class: "note", text: secret ? "Note: (secret, hidden)" : `Note: ${a.notes}` }));
      }
    });
    review.append(list);
    const open = given.filter((a) => a === null).length;
    submit.disabled = open > 0;
    review.append(el("p", {
      class: "hint", id: `a${index}-review-hint`,
      text: open > 0 ? `Answer every question before submitting (${open} open).` : "Everything is answered.",
    }));
    submit.setAttribute("aria-describedby", `a${index}-review-hint`);
  }

  ask.changed = () => {
    if (tabbed) renderTabs();
    if (!tabbed) submit.disabled = answers()[0] === null;
  };
  ask.next = (qi) => {
    if (!tabbed) {
      send();
      return;
    }
    if (qi < questions.length) select(qi + 1, false);
    if (qi + 1 < questions.length) ask.panels[qi + 1].read.focus();
    else submit.focus();
  };

  questions.forEach((question, qi) => {
    const made = questionPanel(ask, question, qi);
    ask.panels.push(made);
    const panel = made.panel;
    if (tabbed) {
      const next = el("button", { type: "button", class: "secondary", text: "Next" });
      next.addEventListener("click", () => ask.next(qi));
      panel.append(el("div", { class: "buttons" }, next));
    }
    panels.push(panel);
  });

  async function send() {
    const given = answers();
    if (given.some((a) => a === null)) {
      say("Answer every question before submitting.");
      return;
    }
    const long = given.map((a) => [...answerText(a)].length).filter((n) => n > LONG_ANSWER);
    if (long.length > 0) {
      const ok = await confirmWith(`Answer is long (${Math.max(...long).toLocaleString("en")} chars). Continue anyway?`);
      if (!ok) return;
    }
    const body = {
      answers: given.map((a, i) => ({
        question: questions[i].question, answer: a.answer, wasCustom: a.wasCustom, notes: a.notes,
      })),
    };
    await post(ask, "answer", body, "Your answers were sent. You can close this page.");
  }

  async function cancelAsk() {
    const n = answeredCount();
    if (questions.length > 1 && n > 0) {
      const ok = await confirmWith(`Discard ${n} ${n === 1 ? "answer" : "answers"}?`);
      if (!ok) return;
    }
    await post(ask, "cancel", {}, "The questions were cancelled.");
  }

  submit.addEventListener("click", send);
  cancel.addEventListener("click", cancelAsk);
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !dialog.open) {
      event.preventDefault();
      cancelAsk();
    }
  });

  if (tabbed) {
    questions.forEach((question, qi) => {
      const tab = el("button", { type: "button", role: "tab", id: `a${index}-tab${qi}`, "aria-controls": `a${index}-panel${qi}` });
      tab.addEventListener("click", () => select(qi, false));
      tabs.push(tab);
      tablist.append(tab);
    });
    const submitTab = el("button", { type: "button", role: "tab", id: `a${index}-tab-submit`, "aria-controls": `a${index}-panel-submit`, text: "✓ Submit" });
    submitTab.addEventListener("click", () => select(questions.length, false));
    tabs.push(submitTab);
    tablist.append(submitTab);
    tablist.addEventListener("keydown", (event) => {
      const moves = { ArrowRight: 1, ArrowLeft: -1 };
      if (event.key in moves) {
        event.preventDefault();
        select((current + moves[event.key] + tabs.length) % tabs.length, true);
      } else if (event.key === "Home") {
        event.preventDefault();
        select(0, true);
      } else if (event.key === "End") {
        event.preventDefault();
        select(tabs.length - 1, true);
      }
    });
    root.append(tablist);
    panels.forEach((panel, p) => {
      panel.setAttribute("role", "tabpanel");
      panel.id = `a${index}-panel${p}`;
      panel.setAttribute("aria-labelledby", `a${index}-tab${p}`);
      root.append(panel);
    });
    const reviewPanel = el("div", { role: "tabpanel", id: `a${index}-panel-submit`, "aria-labelledby": `a${index}-tab-submit` },
      review, el("div", { class: "buttons" }, submit));
    panels.push(reviewPanel);
    root.append(reviewPanel);
    root.append(el("div", { class: "buttons" }, cancel));
    renderTabs();
    select(0, false);
  } else {
    root.append(panels[0]);
    submit.textContent = "Submit";
    submit.disabled = true;
    root.append(el("div", { class: "buttons" }, submit, cancel));
  }
  ask.finish = (text) => {
    root.classList.add("final");
    root.replaceChildren(...[askerLine(view), el("p", { text })].filter(Boolean));
  };
  return ask;
}

async function post(ask, action, body, done) {
  let response;
  try {
    response = await fetch(`/api/asks/${encodeURIComponent(ask.view.requestId)}/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (error) {
    say("The answers could not be sent: ask-user is not reachable.");
    return;
  }
  if (response.ok) {
    ask.state = action === "answer" ? "answered" : "cancelled";
    ask.finish(done);
    say(done);
    statusLine.focus();
    return;
  }
  let message = `The answers could not be sent (${response.status}).`;
  try {
    const reply = await response.json();
    if (reply && reply.error) message = `The answers could not be sent: ${reply.error}`;
  } catch (error) { /* keep the plain message */ }
  say(message);
}

const FINAL_TEXT = {
  answered: "These questions were answered.",
  cancelled: "These questions were cancelled.",
  connection_lost: "The agent stopped waiting: these questions can no longer be answered.",
};

function render(snapshot) {
  snapshot.asks.forEach((view, index) => {
    let ask = shown.get(view.requestId);
    if (!ask) {
      if (view.state === "waiting_for_user") {
        ask = askForm(view, index);
      } else {
        const root = el("section", { class: "ask final", "aria-label": `Questions ${index + 1}` });
        ask = { view, root, state: null, finish: (text) => root.replaceChildren(el("p", { text })) };
      }
      shown.set(view.requestId, ask);
      asksRoot.append(ask.root);
    }
    if (view.state !== "waiting_for_user" && ask.state !== view.state) {
      ask.state = view.state;
      ask.finish(FINAL_TEXT[view.state] || view.state);
    }
  });
  const waiting = snapshot.asks.filter((a) => a.state === "waiting_for_user").length;
  if (waiting > 0) say(waiting === 1 ? "Your agent is waiting for your answers." : `${waiting} asks are waiting for your answers.`);
  else if (snapshot.asks.length > 0 && statusLine.textContent.startsWith("Your agent is waiting")) {
    const last = snapshot.asks[snapshot.asks.length - 1];
    say(FINAL_TEXT[last.state] || "Nothing is waiting.");
  } else if (snapshot.asks.length === 0) say("Nothing is waiting for you.");
  const first = [...shown.values()].find((a) => a.state === "waiting_for_user" && a.panels);
  if (first && !document.activeElement.closest(".ask")) first.panels[0].read.focus();
}

function listen() {
  const source = new EventSource("/api/events");
  source.addEventListener("asks", (event) => {
    const snapshot = JSON.parse(event.data);
    render(snapshot);
    if (snapshot.closing) {
      closing = true;
      source.close();
    }
  });
  source.onerror = () => {
    if (closing) return;
    source.close();
    closing = true;
    for (const ask of shown.values()) {
      if (ask.state === "waiting_for_user") {
        ask.state = "connection_lost";
        ask.finish("ask-user is no longer reachable: these questions can no longer be answered here.");
      }
    }
    say("The connection to ask-user was lost.");
  };
}

statusLine.tabIndex = -1;
setInterval(() => document.querySelectorAll(".age").forEach(updateAge), 30000);
listen();
