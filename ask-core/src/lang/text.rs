//! Every string the terminal UI shows, as one table per language, and the helpers that fill a
//! table's templates.

/// A text with a count in it, in the forms the language needs: `{n}` stands for the count.
#[derive(Debug, serde::Serialize)]
pub struct Counted {
    /// The form for a count of one.
    pub one: &'static str,
    /// The form for any other count.
    pub many: &'static str,
}

impl Counted {
    /// The form for `n`.
    pub fn pick(&self, n: usize) -> &'static str {
        if n == 1 { self.one } else { self.many }
    }
}

/// The parts of a help line, each a key and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Help {
    /// "Tab switch" (in a text field that holds text, where ←→ move the cursor).
    Switch,
    /// "Tab/←→ switch" (on a list, or in an empty text field).
    SwitchArrows,
    /// "↑↓ navigate".
    Navigate,
    /// "1-9 quick select".
    Quick,
    /// "Space toggle".
    Toggle,
    /// "0 Other".
    Other,
    /// "Enter select".
    Select,
    /// "Enter confirm".
    Confirm,
    /// "Enter submit".
    Submit,
    /// "Esc cancel".
    Cancel,
    /// "Esc back".
    Back,
    /// "Shift+↑↓ scroll".
    Scroll,
    /// "Ctrl+N add note" (on every screen of a question; `n` is its alias on a list, unnamed).
    Note,
    /// "Ctrl+T complete" (a path question).
    Complete,
    /// "/ filter" (a list longer than the screen's rows).
    Filter,
    /// "a all/none" (a multi-select).
    All,
    /// "Enter toggle" (the filter of a multi-select).
    ToggleMatch,
    /// "Esc close filter".
    CloseFilter,
    /// "Enter/Esc keep note".
    KeepNote,
    /// "[ ] scroll preview".
    ScrollPreview,
    /// "? more keys" (on a list, whose help line names only the keys that answer it).
    Keys,
    /// "Enter go to unanswered" (the review while a question has no answer).
    ToOpen,
}

/// Every string the terminal UI shows, in one language. Placeholders: `{n}` a count, `{a}` and
/// `{b}` two counts, `{list}` a list of names.
///
/// Every word the UI shows (help lines, "Other", markers, tab names, the review, dialogs,
/// notices, the desktop notification) comes from the `Text` of the state's
/// [`Lang`](super::Lang); the outcome never depends on the language.
#[derive(Debug)]
pub struct Text {
    /// The built-in choice, on its row: "Other (type your answer)". Validation refuses an
    /// option label that reads like it, in every shipped language.
    pub other: &'static str,
    /// The lead of the "Other" row once text is typed: "Other: ".
    pub other_lead: &'static str,
    /// Under kept "Other" text that is not sent yet.
    pub other_sends: &'static str,
    /// Under kept "Other" text while another option is the answer.
    pub other_not_chosen: &'static str,
    /// Under the open "Other" field of a multi-select: the typed text is added to the ticks.
    pub other_adds: &'static str,
    /// The review tab's name in the tab bar: "✓ Submit".
    pub submit_tab: &'static str,
    /// A tab with no header: "Q{n}".
    pub question_tab: &'static str,
    /// The title of the review tab.
    pub review_title: &'static str,
    /// The review's last line when every question is answered.
    pub all_answered: &'static str,
    /// The review's last line otherwise: "Not answered yet: {list}".
    pub not_answered_yet: &'static str,
    /// In the review, for a question with no answer.
    pub not_answered: &'static str,
    /// Between the names of a list.
    pub list_separator: &'static str,
    /// The review's last line when questions do not fit: "... {n} more".
    pub review_more: &'static str,
    /// The end of an answer the review cuts, `{n}` being the question's number, the key that
    /// opens its tab: "… {n} to see all".
    pub review_cut: &'static str,
    /// The end of a cut answer of a question past the ninth, which no digit opens.
    pub review_cut_tab: &'static str,
    /// Above a list that scrolls: "↑ {n} more...".
    pub rows_above: &'static str,
    /// Below a list that scrolls: "↓ {n} more...".
    pub rows_below: &'static str,
    /// Rows out of view on a tiny terminal, `{list}` being "↑ 2 ↓ 3": "{list} more...".
    pub rows_out: &'static str,
    /// A text cut at its end: "… {n} more lines", then shorter.
    pub lines_below: [Counted; 2],
    /// A text scrolled from its start: "… {n} lines above", then shorter.
    pub lines_above: [Counted; 2],
    /// Both, counted by `{a}` (above): "… {a} lines above, {b} more".
    pub lines_both: Counted,
    /// A field's characters before the window: "… {n} earlier characters", then shorter.
    pub chars_before: [Counted; 2],
    /// A field's characters on both sides, counted by `{b}`: "… {a} earlier, {b} more
    /// characters", then shorter.
    pub chars_both: [Counted; 2],
    /// A field's characters after the window: "… {n} more characters", then shorter.
    pub chars_after: [Counted; 2],
    /// The help line's parts, in the order of [`Help`]'s variants.
    help: [&'static str; 22],
    /// The lead of the note under a question: "Note: ".
    pub note_lead: &'static str,
    /// After the filter's text, `{a}` matches of `{b}` options: "{a} of {b} options".
    pub filter_count: &'static str,
    /// The title of the preview box.
    pub preview_title: &'static str,
    /// In the preview box of a row without a preview.
    pub no_preview: &'static str,
    /// Ctrl+T found nothing to complete.
    pub no_completion: &'static str,
    /// Typing or a paste reached the cap of one answer (64 KiB of UTF-8); the rest was left out.
    pub answer_cap: &'static str,
    /// "Discard {n} answers? [y/N]".
    pub discard: Counted,
    /// After the discard question when Ctrl+C asked it: a second Ctrl+C abandons the call.
    pub ctrl_c_again: &'static str,
    /// "Answer is long ({n} chars). Continue anyway? [Y/n]".
    pub long_answer: &'static str,
    /// Enter on a multi-select question with nothing ticked: "None of these? [y/N]".
    pub none_of_these: &'static str,
    /// A multi-select answer of none of the options, where the review shows the answer.
    pub none_chosen: &'static str,
    /// "{n} questions still need an answer".
    pub unanswered: Counted,
    /// Enter on an empty free-text field.
    pub type_first: &'static str,
    /// Enter on an empty "Other" field.
    pub type_first_or_back: &'static str,
    /// Enter on an empty field that shows an example: the example is not an answer.
    pub type_not_example: &'static str,
    /// The lead of a question's example in its empty field: "e.g. ".
    pub example_lead: &'static str,
    /// The key that says yes at a confirmation besides `y`, as the prompts show it.
    pub yes_key: char,
    /// The desktop notification: "The agent is waiting for your answers to {n} questions".
    pub notification: Counted,
    /// Between groups of three digits: "2,847".
    pub thousands_separator: &'static str,
}

impl Text {
    /// The words of a help line's part.
    pub fn help(&self, part: Help) -> &'static str {
        self.help[part as usize]
    }

    /// A count with the language's thousands separator: 2847 as "2,847" or "2.847".
    pub fn number(&self, n: usize) -> String {
        let digits = n.to_string();
        let mut out = String::with_capacity(digits.len() + 8);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push_str(self.thousands_separator);
            }
            out.push(c);
        }
        out
    }
}

/// `template` with each `{name}` of `values` replaced by its value.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// A text with a form for one and a form for any other count.
pub(super) const fn counted(one: &'static str, many: &'static str) -> Counted {
    Counted { one, many }
}

/// A text that reads the same for every count.
pub(super) const fn same(text: &'static str) -> Counted {
    Counted {
        one: text,
        many: text,
    }
}

pub(super) static EN: Text = Text {
    other: "Other (type your answer)",
    other_lead: "Other: ",
    other_sends: "(Enter on this row sends it)",
    other_not_chosen: "(not chosen: Enter on this row sends it)",
    other_adds: "(added to the options you tick)",
    submit_tab: "✓ Submit",
    question_tab: "Q{n}",
    review_title: "Review your answers",
    all_answered: "All answered. Press Enter to submit.",
    not_answered_yet: "Not answered yet: {list}",
    not_answered: "(not answered)",
    list_separator: ", ",
    review_more: "... {n} more",
    review_cut: "… press {n} for all",
    review_cut_tab: "… all on its tab",
    rows_above: "↑ {n} more...",
    rows_below: "↓ {n} more...",
    rows_out: "{list} more...",
    lines_below: [
        counted("… {n} more line", "… {n} more lines"),
        same("… {n} more"),
    ],
    lines_above: [
        counted("… {n} line above", "… {n} lines above"),
        same("… {n} above"),
    ],
    lines_both: counted("… {a} line above, {b} more", "… {a} lines above, {b} more"),
    chars_before: [
        counted("… {n} earlier character", "… {n} earlier characters"),
        same("… {n} earlier"),
    ],
    chars_both: [
        counted(
            "… {a} earlier, {b} more character",
            "… {a} earlier, {b} more characters",
        ),
        same("… {a} earlier, {b} more"),
    ],
    chars_after: [
        counted("… {n} more character", "… {n} more characters"),
        same("… {n} more"),
    ],
    help: [
        "Tab switch",
        "Tab/←→ switch",
        "↑↓ navigate",
        "1-9 quick select",
        "Space toggle",
        "0 Other",
        "Enter select",
        "Enter confirm",
        "Enter submit",
        "Esc cancel",
        "Esc back",
        "Shift+↑↓ scroll",
        "Ctrl+N add note",
        "Ctrl+T complete",
        "/ filter",
        "a all/none",
        "Enter toggle",
        "Esc close filter",
        "Enter/Esc keep note",
        "[ ] scroll preview",
        "? more keys",
        "Enter go to unanswered",
    ],
    note_lead: "Note: ",
    filter_count: "{a} of {b} options",
    preview_title: "Preview",
    no_preview: "(no preview)",
    no_completion: "No path starts with that",
    answer_cap: "An answer holds at most 64 KiB; the rest was left out",
    discard: counted("Discard 1 answer? [y/N]", "Discard {n} answers? [y/N]"),
    ctrl_c_again: "Press Ctrl+C again to abandon the questions.",
    long_answer: "Answer is long ({n} chars). Continue anyway? [Y/n]",
    none_of_these: "None of these? [y/N]",
    none_chosen: "None of these",
    unanswered: counted(
        "1 question still needs an answer",
        "{n} questions still need an answer",
    ),
    type_first: "Type an answer first",
    type_first_or_back: "Type an answer first, or Esc to go back",
    type_not_example: "The example is not an answer: type yours, then Enter",
    example_lead: "e.g. ",
    yes_key: 'y',
    notification: counted(
        "The agent is waiting for your answer to a question",
        "The agent is waiting for your answers to {n} questions",
    ),
    thousands_separator: ",",
};

pub(super) static DE: Text = Text {
    other: "Andere (eigene Antwort eingeben)",
    other_lead: "Andere: ",
    other_sends: "(Enter in dieser Zeile sendet sie)",
    other_not_chosen: "(nicht gewählt: Enter in dieser Zeile sendet sie)",
    other_adds: "(kommt zu den angekreuzten Optionen hinzu)",
    submit_tab: "✓ Senden",
    question_tab: "F{n}",
    review_title: "Antworten prüfen",
    all_answered: "Alles beantwortet. Enter zum Senden.",
    not_answered_yet: "Noch offen: {list}",
    not_answered: "(nicht beantwortet)",
    list_separator: ", ",
    review_more: "... {n} weitere",
    review_cut: "… {n} drücken: alles",
    review_cut_tab: "… ganz auf seinem Reiter",
    rows_above: "↑ {n} weitere...",
    rows_below: "↓ {n} weitere...",
    rows_out: "{list} weitere...",
    lines_below: [
        counted("… {n} weitere Zeile", "… {n} weitere Zeilen"),
        same("… {n} weitere"),
    ],
    lines_above: [
        counted("… {n} Zeile darüber", "… {n} Zeilen darüber"),
        same("… {n} darüber"),
    ],
    lines_both: counted(
        "… {a} Zeile darüber, {b} weitere",
        "… {a} Zeilen darüber, {b} weitere",
    ),
    chars_before: [same("… {n} Zeichen davor"), same("… {n} davor")],
    chars_both: [
        same("… {a} davor, {b} weitere Zeichen"),
        same("… {a} davor, {b} weitere"),
    ],
    chars_after: [
        counted("… {n} weiteres Zeichen", "… {n} weitere Zeichen"),
        same("… {n} weitere"),
    ],
    help: [
        "Tab wechseln",
        "Tab/←→ wechseln",
        "↑↓ bewegen",
        "1-9 Schnellwahl",
        "Leertaste an/aus",
        "0 Andere",
        "Enter wählen",
        "Enter ok",
        "Enter senden",
        "Esc Abbruch",
        "Esc zurück",
        "Shift+↑↓ blättern",
        "Strg+N Notiz dazu",
        "Strg+T ergänzen",
        "/ filtern",
        "a alle/keine",
        "Enter an/aus",
        "Esc Filter zu",
        "Enter/Esc Notiz behalten",
        "[ ] Vorschau blättern",
        "? Tasten",
        "Enter zur offenen Frage",
    ],
    note_lead: "Notiz: ",
    filter_count: "{a} von {b} Optionen",
    preview_title: "Vorschau",
    no_preview: "(keine Vorschau)",
    no_completion: "Kein Pfad beginnt so",
    answer_cap: "Eine Antwort fasst höchstens 64 KiB; der Rest fehlt",
    discard: counted(
        "1 Antwort verwerfen? [j/N]",
        "{n} Antworten verwerfen? [j/N]",
    ),
    ctrl_c_again: "Noch einmal Strg+C bricht die Fragen ab.",
    long_answer: "Die Antwort ist lang ({n} Zeichen). Trotzdem fortfahren? [J/n]",
    none_of_these: "Keine davon? [j/N]",
    none_chosen: "Keine davon",
    unanswered: counted(
        "1 Frage braucht noch eine Antwort",
        "{n} Fragen brauchen noch eine Antwort",
    ),
    type_first: "Bitte zuerst eine Antwort eingeben",
    type_first_or_back: "Bitte zuerst eine Antwort eingeben, oder Esc für zurück",
    type_not_example: "Das Beispiel ist keine Antwort: eigene eingeben, dann Enter",
    example_lead: "z. B. ",
    yes_key: 'j',
    notification: counted(
        "Der Agent wartet auf deine Antwort auf eine Frage",
        "Der Agent wartet auf deine Antworten auf {n} Fragen",
    ),
    thousands_separator: ".",
};

pub(super) static ES: Text = Text {
    other: "Otra (escriba su respuesta)",
    other_lead: "Otra: ",
    other_sends: "(Enter en esta fila la envía)",
    other_not_chosen: "(no elegida: Enter en esta fila la envía)",
    other_adds: "(se añade a las opciones marcadas)",
    submit_tab: "✓ Enviar",
    question_tab: "P{n}",
    review_title: "Revise sus respuestas",
    all_answered: "Todo respondido. Pulse Enter para enviar.",
    not_answered_yet: "Sin responder: {list}",
    not_answered: "(sin responder)",
    list_separator: ", ",
    review_more: "... {n} más",
    review_cut: "… {n} para verlo todo",
    review_cut_tab: "… completa en su pestaña",
    rows_above: "↑ {n} más...",
    rows_below: "↓ {n} más...",
    rows_out: "{list} más...",
    lines_below: [
        counted("… {n} línea más", "… {n} líneas más"),
        same("… {n} más"),
    ],
    lines_above: [
        counted("… {n} línea arriba", "… {n} líneas arriba"),
        same("… {n} arriba"),
    ],
    lines_both: counted(
        "… {a} línea arriba, {b} más",
        "… {a} líneas arriba, {b} más",
    ),
    chars_before: [
        counted("… {n} carácter antes", "… {n} caracteres antes"),
        same("… {n} antes"),
    ],
    chars_both: [
        counted(
            "… {a} antes, {b} carácter más",
            "… {a} antes, {b} caracteres más",
        ),
        same("… {a} antes, {b} más"),
    ],
    chars_after: [
        counted("… {n} carácter más", "… {n} caracteres más"),
        same("… {n} más"),
    ],
    help: [
        "Tab cambiar",
        "Tab/←→ cambiar",
        "↑↓ mover",
        "1-9 selección rápida",
        "Espacio marcar",
        "0 Otra",
        "Enter elegir",
        "Enter listo",
        "Enter enviar",
        "Esc anular",
        "Esc volver",
        "Shift+↑↓ desplazar",
        "Ctrl+N anotar",
        "Ctrl+T completar",
        "/ filtrar",
        "a todas/ninguna",
        "Enter marcar",
        "Esc cerrar filtro",
        "Enter/Esc guardar nota",
        "[ ] desplazar vista previa",
        "? teclas",
        "Enter ir a la pendiente",
    ],
    note_lead: "Nota: ",
    filter_count: "{a} de {b} opciones",
    preview_title: "Vista previa",
    no_preview: "(sin vista previa)",
    no_completion: "Ninguna ruta empieza así",
    answer_cap: "Una respuesta admite 64 KiB como máximo; el resto no se añadió",
    discard: counted(
        "¿Descartar 1 respuesta? [s/N]",
        "¿Descartar {n} respuestas? [s/N]",
    ),
    ctrl_c_again: "Pulsa Ctrl+C otra vez para abandonar las preguntas.",
    long_answer: "La respuesta es larga ({n} caracteres). ¿Continuar de todos modos? [S/n]",
    none_of_these: "¿Ninguna de estas? [s/N]",
    none_chosen: "Ninguna de estas",
    unanswered: counted(
        "Falta 1 pregunta por responder",
        "Faltan {n} preguntas por responder",
    ),
    type_first: "Escriba primero una respuesta",
    type_first_or_back: "Escriba primero una respuesta, o Esc para volver",
    type_not_example: "El ejemplo no es una respuesta: escriba la suya y pulse Enter",
    example_lead: "p. ej. ",
    yes_key: 's',
    notification: counted(
        "El agente espera su respuesta a una pregunta",
        "El agente espera sus respuestas a {n} preguntas",
    ),
    thousands_separator: ".",
};

pub(super) static FR: Text = Text {
    other: "Autre (saisissez votre réponse)",
    other_lead: "Autre : ",
    other_sends: "(Enter sur cette ligne l'envoie)",
    other_not_chosen: "(non choisi : Enter sur cette ligne l'envoie)",
    other_adds: "(s'ajoute aux options cochées)",
    submit_tab: "✓ Envoyer",
    question_tab: "Q{n}",
    review_title: "Vérifiez vos réponses",
    all_answered: "Tout est répondu. Enter pour envoyer.",
    not_answered_yet: "Sans réponse : {list}",
    not_answered: "(sans réponse)",
    list_separator: ", ",
    review_more: "... {n} de plus",
    review_cut: "… touche {n} : tout voir",
    review_cut_tab: "… en entier sur son onglet",
    rows_above: "↑ {n} de plus...",
    rows_below: "↓ {n} de plus...",
    rows_out: "{list} de plus...",
    lines_below: [
        counted("… {n} ligne de plus", "… {n} lignes de plus"),
        same("… {n} de plus"),
    ],
    lines_above: [
        counted("… {n} ligne au-dessus", "… {n} lignes au-dessus"),
        same("… {n} au-dessus"),
    ],
    lines_both: counted(
        "… {a} ligne au-dessus, {b} de plus",
        "… {a} lignes au-dessus, {b} de plus",
    ),
    chars_before: [
        counted("… {n} caractère avant", "… {n} caractères avant"),
        same("… {n} avant"),
    ],
    chars_both: [
        counted(
            "… {a} avant, {b} caractère de plus",
            "… {a} avant, {b} caractères de plus",
        ),
        same("… {a} avant, {b} de plus"),
    ],
    chars_after: [
        counted("… {n} caractère de plus", "… {n} caractères de plus"),
        same("… {n} de plus"),
    ],
    help: [
        "Tab changer",
        "Tab/←→ changer",
        "↑↓ naviguer",
        "1-9 choix rapide",
        "Espace cocher",
        "0 Autre",
        "Enter choisir",
        "Enter OK",
        "Enter envoyer",
        "Esc annuler",
        "Esc revenir",
        "Shift+↑↓ défiler",
        "Ctrl+N annoter",
        "Ctrl+T compléter",
        "/ filtrer",
        "a tout/rien",
        "Enter cocher",
        "Esc fermer le filtre",
        "Enter/Esc garder la note",
        "[ ] défiler l'aperçu",
        "? touches",
        "Enter question sans réponse",
    ],
    note_lead: "Note : ",
    filter_count: "{a} sur {b} options",
    preview_title: "Aperçu",
    no_preview: "(pas d'aperçu)",
    no_completion: "Aucun chemin ne commence ainsi",
    answer_cap: "Une réponse contient au plus 64 Kio ; le reste est ignoré",
    discard: counted(
        "Abandonner 1 réponse ? [o/N]",
        "Abandonner {n} réponses ? [o/N]",
    ),
    ctrl_c_again: "Appuyez encore sur Ctrl+C pour abandonner les questions.",
    long_answer: "La réponse est longue ({n} caractères). Continuer quand même ? [O/n]",
    none_of_these: "Aucune de ces options ? [o/N]",
    none_chosen: "Aucune de ces options",
    unanswered: counted(
        "1 question attend encore une réponse",
        "{n} questions attendent encore une réponse",
    ),
    type_first: "Saisissez d'abord une réponse",
    type_first_or_back: "Saisissez d'abord une réponse, ou Esc pour revenir",
    type_not_example: "L'exemple n'est pas une réponse : saisissez la vôtre, puis Enter",
    example_lead: "ex. : ",
    yes_key: 'o',
    notification: counted(
        "L'agent attend votre réponse à une question",
        "L'agent attend vos réponses à {n} questions",
    ),
    thousands_separator: "\u{202f}",
};

pub(super) static JA: Text = Text {
    other: "その他（自由入力）",
    other_lead: "その他: ",
    other_sends: "（この行で Enter を押すと送信）",
    other_not_chosen: "（未選択: この行で Enter を押すと送信）",
    other_adds: "（チェックした選択肢に追加されます）",
    submit_tab: "✓ 送信",
    question_tab: "Q{n}",
    review_title: "回答の確認",
    all_answered: "すべて回答済みです。Enter で送信します。",
    not_answered_yet: "未回答: {list}",
    not_answered: "（未回答）",
    list_separator: "、",
    review_more: "... 他 {n} 件",
    review_cut: "… {n} キーで全文",
    review_cut_tab: "… 全文はそのタブで",
    rows_above: "↑ 他 {n} 件...",
    rows_below: "↓ 他 {n} 件...",
    rows_out: "他 {list} 件...",
    lines_below: [same("… 残り {n} 行"), same("… 残り {n}")],
    lines_above: [same("… 上に {n} 行"), same("… 上に {n}")],
    lines_both: same("… 上に {a} 行、残り {b} 行"),
    chars_before: [same("… 前に {n} 文字"), same("… 前に {n}")],
    chars_both: [
        same("… 前に {a} 文字、後に {b} 文字"),
        same("… 前 {a}、後 {b}"),
    ],
    chars_after: [same("… 後に {n} 文字"), same("… 後 {n}")],
    help: [
        "Tab 切替",
        "Tab/←→ 切替",
        "↑↓ 移動",
        "1-9 クイック選択",
        "Space 選択/解除",
        "0 その他",
        "Enter で選択",
        "Enter で確定",
        "Enter で送信",
        "Esc で中止",
        "Esc で戻る",
        "Shift+↑↓ スクロール",
        "Ctrl+N メモ追加",
        "Ctrl+T 補完",
        "/ 絞り込み",
        "a 全選択/全解除",
        "Enter で選択/解除",
        "Esc で絞り込みを閉じる",
        "Enter/Esc でメモを保存",
        "[ ] プレビューをスクロール",
        "? キー一覧",
        "Enter で未回答へ",
    ],
    note_lead: "メモ: ",
    filter_count: "{b} 件中 {a} 件",
    preview_title: "プレビュー",
    no_preview: "(プレビューなし)",
    no_completion: "一致するパスがありません",
    answer_cap: "回答は 64 KiB までです。残りは入力されません",
    discard: same("{n} 件の回答を破棄しますか？ [y/N]"),
    ctrl_c_again: "もう一度 Ctrl+C を押すと質問を中断します。",
    long_answer: "回答が長くなっています（{n} 文字）。このまま続けますか？ [Y/n]",
    none_of_these: "いずれも該当しませんか？ [y/N]",
    none_chosen: "いずれも該当なし",
    unanswered: same("{n} 件の質問がまだ未回答です"),
    type_first: "先に回答を入力してください",
    type_first_or_back: "先に回答を入力するか、Esc で戻ってください",
    type_not_example: "例は回答ではありません。回答を入力して Enter を押してください",
    example_lead: "例: ",
    yes_key: 'y',
    notification: counted(
        "エージェントが質問への回答を待っています",
        "エージェントが {n} 件の質問への回答を待っています",
    ),
    thousands_separator: ",",
};

pub(super) static ZH: Text = Text {
    other: "其他（请输入）",
    other_lead: "其他: ",
    other_sends: "（在此行按 Enter 发送）",
    other_not_chosen: "（未选中：在此行按 Enter 发送）",
    other_adds: "（将添加到你勾选的选项中）",
    submit_tab: "✓ 提交",
    question_tab: "Q{n}",
    review_title: "检查你的回答",
    all_answered: "已全部回答。按 Enter 提交。",
    not_answered_yet: "尚未回答：{list}",
    not_answered: "（未回答）",
    list_separator: "、",
    review_more: "... 还有 {n} 个",
    review_cut: "… 按 {n} 查看全部",
    review_cut_tab: "… 完整内容见其标签页",
    rows_above: "↑ 还有 {n} 项...",
    rows_below: "↓ 还有 {n} 项...",
    rows_out: "还有 {list} 项...",
    lines_below: [same("… 还有 {n} 行"), same("… 还有 {n}")],
    lines_above: [same("… 上方 {n} 行"), same("… 上方 {n}")],
    lines_both: same("… 上方 {a} 行，还有 {b} 行"),
    chars_before: [same("… 前面 {n} 个字符"), same("… 前面 {n}")],
    chars_both: [
        same("… 前面 {a} 个、后面 {b} 个字符"),
        same("… 前 {a}、后 {b}"),
    ],
    chars_after: [same("… 还有 {n} 个字符"), same("… 还有 {n}")],
    help: [
        "Tab 切换",
        "Tab/←→ 切换",
        "↑↓ 移动",
        "1-9 快速选择",
        "空格 勾选",
        "0 其他",
        "Enter 选择",
        "Enter 确认",
        "Enter 提交",
        "Esc 取消",
        "Esc 返回",
        "Shift+↑↓ 滚动",
        "Ctrl+N 添加备注",
        "Ctrl+T 补全",
        "/ 筛选",
        "a 全选/全不选",
        "Enter 勾选",
        "Esc 关闭筛选",
        "Enter/Esc 保留备注",
        "[ ] 滚动预览",
        "? 更多按键",
        "Enter 转到未答问题",
    ],
    note_lead: "备注：",
    filter_count: "{b} 项中的 {a} 项",
    preview_title: "预览",
    no_preview: "(无预览)",
    no_completion: "没有以此开头的路径",
    answer_cap: "回答最多 64 KiB，其余部分未输入",
    discard: same("放弃 {n} 个回答？[y/N]"),
    ctrl_c_again: "再按一次 Ctrl+C 放弃这些问题。",
    long_answer: "回答较长（{n} 个字符）。仍要继续吗？[Y/n]",
    none_of_these: "以上都不是？[y/N]",
    none_chosen: "以上都不是",
    unanswered: same("还有 {n} 个问题需要回答"),
    type_first: "请先输入回答",
    type_first_or_back: "请先输入回答，或按 Esc 返回",
    type_not_example: "示例不是回答：请输入你的回答，然后按 Enter",
    example_lead: "例如：",
    yes_key: 'y',
    notification: counted(
        "智能体正在等待你回答一个问题",
        "智能体正在等待你回答 {n} 个问题",
    ),
    thousands_separator: ",",
};

#[cfg(test)]
mod tests {
    use crate::lang::Lang;

    #[test]
    fn numbers_use_the_language_separator() {
        assert_eq!(Lang::En.text().number(2847), "2,847");
        assert_eq!(Lang::De.text().number(1_234_567), "1.234.567");
        assert_eq!(Lang::Fr.text().number(999), "999");
        assert_eq!(Lang::Fr.text().number(2847), "2\u{202f}847");
    }

    #[test]
    fn every_template_names_only_its_placeholders() {
        for lang in Lang::ALL {
            let text = lang.text();
            let with_n = [
                text.question_tab,
                text.review_more,
                text.review_cut,
                text.rows_above,
                text.rows_below,
                text.long_answer,
                text.discard.many,
                text.unanswered.many,
                text.notification.many,
            ]
            .into_iter()
            .chain(
                [
                    &text.lines_below,
                    &text.lines_above,
                    &text.chars_before,
                    &text.chars_after,
                ]
                .into_iter()
                .flat_map(|forms| forms.iter().flat_map(|f| [f.one, f.many])),
            );
            for template in with_n {
                assert!(template.contains("{n}"), "{lang}: {template}");
            }
            for template in [text.lines_both.one, text.lines_both.many]
                .into_iter()
                .chain(text.chars_both.iter().flat_map(|f| [f.one, f.many]))
            {
                assert!(
                    template.contains("{a}") && template.contains("{b}"),
                    "{lang}: {template}"
                );
            }
            assert!(text.not_answered_yet.contains("{list}"));
            assert!(text.rows_out.contains("{list}"));
            // Each dialog names the language's yes key.
            let yes = text.yes_key.to_string();
            assert!(text.discard.many.contains(&format!("[{yes}/N]")), "{lang}");
            assert!(
                text.long_answer
                    .contains(&format!("[{}/n]", yes.to_uppercase())),
                "{lang}"
            );
            assert!(text.none_of_these.contains(&format!("[{yes}/N]")), "{lang}");
        }
    }
}
