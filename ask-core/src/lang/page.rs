//! The words of the web page, one table per language, which the page receives as JSON.

use serde::Serialize;

use super::Counted;
use super::text::{counted, same};

/// Every string the web page shows, in one language; the page receives it as JSON (camelCase
/// field names). Placeholders: `{n}` a count, `{agent}` an agent's name, `{cwd}` a folder,
/// `{name}` a question's tab name, `{note}` a note, `{question}` a question, `{status}` an HTTP
/// status, `{error}` the server's sentence.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageText {
    /// The page's title in the browser's tab.
    pub title: &'static str,
    /// The heading at the top of the page.
    pub heading: &'static str,
    /// The status line until the questions arrive.
    pub loading: &'static str,
    /// The accessible name of the list of asks.
    pub asks_label: &'static str,
    /// The confirmation dialog's yes button (never an answer: a yes/no question's options stay
    /// "Yes" and "No").
    pub yes: &'static str,
    /// The confirmation dialog's no button.
    pub no: &'static str,
    /// The accessible name of an ask's tab bar.
    pub questions_label: &'static str,
    /// The accessible name of the `{n}`th ask.
    pub ask_label: &'static str,
    /// The same, for an ask whose agent is named: "Questions {n} from {agent}".
    pub ask_label_from: &'static str,
    /// After the agent's name on the asker line: "in {cwd}".
    pub asker_in: &'static str,
    /// The age of an ask asked less than a minute ago.
    pub asked_now: &'static str,
    /// The age of an ask: "asked {n} min ago".
    pub asked_ago: &'static str,
    /// The tab of a question with no header: "Question {n}".
    pub question_tab: &'static str,
    /// The accessible name of an answered question's tab: "{name}, answered".
    pub tab_answered: &'static str,
    /// The accessible name of an open question's tab: "{name}, not answered".
    pub tab_open: &'static str,
    /// The review's tab: "✓ Submit".
    pub submit_tab: &'static str,
    /// The label of the note field under each question.
    pub note_label: &'static str,
    /// A note in the review: "Note: {note}".
    pub note: &'static str,
    /// The hint of a multi-select question, which says that typed text is added to the choices.
    pub choose_any: &'static str,
    /// The choice of a multi-select question that answers it with none of its options.
    pub none_of_these: &'static str,
    /// The built-in choice, as the terminal UI names it.
    pub other: &'static str,
    /// The accessible name of the "Other" text field: "Your own answer to: {question}".
    pub own_answer: &'static str,
    /// The visible label of the "Other" text field, words of `own_answer` where the language
    /// allows: "Your own answer".
    pub own_answer_label: &'static str,
    /// Under a field, as it is typed, once it holds a long answer: "Answer is long ({n} chars):
    /// Submit asks before sending it.".
    pub long_count: &'static str,
    /// Under a field whose typing or paste reached the cap of one answer (64 KiB of UTF-8):
    /// "An answer holds at most 64 KiB; the rest was left out.".
    pub answer_cap: &'static str,
    /// The dialog before a long answer is sent: "Answer is long ({n} chars). Continue anyway?".
    pub long_answer: &'static str,
    /// The button to the next question.
    pub next: &'static str,
    /// The button that sends the answer of a single question.
    pub submit: &'static str,
    /// The button that sends the answers of several questions.
    pub submit_answers: &'static str,
    /// The button that cancels the questions.
    pub cancel: &'static str,
    /// The title of the review.
    pub review_title: &'static str,
    /// In the review, for a question with no answer.
    pub not_answered: &'static str,
    /// After the first lines of a long answer in the review: "… {n} more characters".
    pub more_chars: Counted,
    /// Under the review while questions are open: "… ({n} open).".
    pub open_count: Counted,
    /// Under the review when every question is answered.
    pub all_answered: &'static str,
    /// Submit pressed while questions are open.
    pub answer_all: &'static str,
    /// The dialog before answers are discarded: "Discard {n} answers?".
    pub discard: Counted,
    /// Once the person's answers reached the agent.
    pub sent: &'static str,
    /// Once the person cancelled.
    pub cancelled: &'static str,
    /// Once the answers (or the cancel) were saved by an inbox that keeps its asks, for an
    /// agent that is not connected now.
    pub saved_for_agent: &'static str,
    /// Above answers that never reached the agent, kept on the page.
    pub not_delivered: &'static str,
    /// The answers could not be sent because the server did not answer.
    pub send_unreachable: &'static str,
    /// The server refused the answers with an HTTP status: "… ({status}).".
    pub send_failed_status: &'static str,
    /// The server refused the answers and said why (in its own words): "…: {error}".
    pub send_failed: &'static str,
    /// An ask answered (on this page or another).
    pub final_answered: &'static str,
    /// An ask cancelled (on this page or another).
    pub final_cancelled: &'static str,
    /// An ask whose agent stopped waiting.
    pub final_lost: &'static str,
    /// The status line while asks wait: one ask, or "{n} asks are waiting for your answers.".
    pub waiting: Counted,
    /// The status line when nothing waits.
    pub nothing_waiting: &'static str,
    /// The status line once the server stopped.
    pub stopped: &'static str,
    /// The server cannot be reached while the page signs in.
    pub unreachable: &'static str,
    /// The link was already spent.
    pub link_used: &'static str,
    /// The page was opened without the link.
    pub no_session: &'static str,
    /// The event stream broke and is opened again.
    pub reconnecting: &'static str,
    /// In place of an ask once the server is gone for good.
    pub gone: &'static str,
    /// The status line once the server is gone for good.
    pub lost: &'static str,
    /// Between groups of three digits, as the terminal UI writes counts.
    pub thousands_separator: &'static str,
    /// The status line when the page fell behind the changes and its stream was opened again.
    pub fell_behind: &'static str,
    /// How many questions an ask holds, on the line of an ask not opened yet.
    pub question_count: Counted,
    /// The button that opens an ask's questions.
    pub open_ask: &'static str,
    /// The sentence when the inbox is full and asks of agents that went away take its room.
    pub full_of_away: &'static str,
    /// The button that cancels every waiting ask of one agent: "Cancel all {n} from {agent}".
    pub cancel_agent: &'static str,
}

pub(super) static EN: PageText = PageText {
    title: "ask-user: questions",
    heading: "Questions from your agent",
    loading: "Loading the questions…",
    asks_label: "Asks",
    yes: "Yes",
    no: "No",
    questions_label: "Questions",
    ask_label: "Questions {n}",
    ask_label_from: "Questions {n} from {agent}",
    asker_in: "in {cwd}",
    asked_now: "asked just now",
    asked_ago: "asked {n} min ago",
    question_tab: "Question {n}",
    tab_answered: "{name}, answered",
    tab_open: "{name}, not answered",
    submit_tab: "✓ Submit",
    note_label: "Note on this answer (optional)",
    note: "Note: {note}",
    choose_any: "Choose any number. What you type under Other is added to your choices.",
    none_of_these: "None of these",
    other: "Other (type your answer)",
    own_answer: "Your own answer to: {question}",
    own_answer_label: "Your own answer",
    long_count: "Answer is long ({n} chars): Submit asks before sending it.",
    answer_cap: "An answer holds at most 64 KiB; the rest was left out.",
    long_answer: "Answer is long ({n} chars). Continue anyway?",
    next: "Next",
    submit: "Submit",
    submit_answers: "Submit answers",
    cancel: "Cancel",
    review_title: "Review your answers",
    not_answered: "Not answered yet",
    more_chars: counted("… 1 more character", "… {n} more characters"),
    open_count: counted(
        "Answer every question before submitting (1 open).",
        "Answer every question before submitting ({n} open).",
    ),
    all_answered: "Everything is answered.",
    answer_all: "Answer every question before submitting.",
    discard: counted("Discard 1 answer?", "Discard {n} answers?"),
    sent: "Your answers were sent. You can close this page.",
    cancelled: "The questions were cancelled.",
    not_delivered: "Your answers were not delivered:",
    saved_for_agent: "Saved: your agent is not connected now, and it gets this when it asks again.",
    send_unreachable: "The answers could not be sent: ask-user is not reachable. They stay on this \
                       page.",
    send_failed_status: "The answers could not be sent ({status}).",
    send_failed: "The answers could not be sent: {error}",
    final_answered: "These questions were answered.",
    final_cancelled: "These questions were cancelled.",
    final_lost: "Your agent stopped waiting: these questions can no longer be answered.",
    waiting: counted(
        "Your agent is waiting for your answers.",
        "{n} asks are waiting for your answers.",
    ),
    nothing_waiting: "Nothing is waiting for you.",
    stopped: "ask-user stopped: nothing more can be answered here.",
    unreachable: "ask-user is not reachable.",
    link_used: "This link was already used: ask for a fresh link where ask-user runs.",
    no_session: "Open the link that ask-user printed: this page has no session.",
    reconnecting: "The connection to ask-user was interrupted: reconnecting…",
    gone: "ask-user is no longer reachable: these questions can no longer be answered here.",
    lost: "The connection to ask-user was lost.",
    thousands_separator: ",",
    fell_behind: "This page fell behind the changes and was reconnected; it shows the asks as they are now.",
    question_count: counted("1 question", "{n} questions"),
    open_ask: "Open",
    full_of_away: "The inbox is full: asks whose agents went away take its room. Cancel them to make room for the others.",
    cancel_agent: "Cancel all {n} from {agent}",
};

pub(super) static DE: PageText = PageText {
    title: "ask-user: Fragen",
    heading: "Fragen von deinem Agenten",
    loading: "Die Fragen werden geladen…",
    asks_label: "Anfragen",
    yes: "Ja",
    no: "Nein",
    questions_label: "Fragen",
    ask_label: "Fragen {n}",
    ask_label_from: "Fragen {n} von {agent}",
    asker_in: "im Ordner {cwd}",
    asked_now: "gerade eben gefragt",
    asked_ago: "vor {n} Min. gefragt",
    question_tab: "Frage {n}",
    tab_answered: "{name}, beantwortet",
    tab_open: "{name}, nicht beantwortet",
    submit_tab: "✓ Senden",
    note_label: "Notiz zu dieser Antwort (optional)",
    note: "Notiz: {note}",
    choose_any: "Beliebig viele wählbar. Was du unter Andere eingibst, kommt zu deiner Auswahl hinzu.",
    none_of_these: "Keine davon",
    other: "Andere (eigene Antwort eingeben)",
    own_answer: "Deine eigene Antwort auf: {question}",
    own_answer_label: "Deine eigene Antwort",
    long_count: "Die Antwort ist lang ({n} Zeichen): Vor dem Senden wird nachgefragt.",
    answer_cap: "Eine Antwort fasst höchstens 64 KiB; der Rest wurde weggelassen.",
    long_answer: "Die Antwort ist lang ({n} Zeichen). Trotzdem fortfahren?",
    next: "Weiter",
    submit: "Senden",
    submit_answers: "Antworten senden",
    cancel: "Abbrechen",
    review_title: "Antworten prüfen",
    not_answered: "Noch nicht beantwortet",
    more_chars: counted("… 1 weiteres Zeichen", "… {n} weitere Zeichen"),
    open_count: same("Beantworte vor dem Senden jede Frage ({n} offen)."),
    all_answered: "Alles ist beantwortet.",
    answer_all: "Beantworte vor dem Senden jede Frage.",
    discard: counted("1 Antwort verwerfen?", "{n} Antworten verwerfen?"),
    sent: "Deine Antworten wurden gesendet. Du kannst diese Seite schließen.",
    cancelled: "Die Fragen wurden abgebrochen.",
    not_delivered: "Deine Antworten wurden nicht zugestellt:",
    saved_for_agent: "Gespeichert: Dein Agent ist gerade nicht verbunden und erhält es, sobald er wieder fragt.",
    send_unreachable: "Die Antworten konnten nicht gesendet werden: ask-user ist nicht \
                       erreichbar. Sie bleiben auf dieser Seite.",
    send_failed_status: "Die Antworten konnten nicht gesendet werden ({status}).",
    send_failed: "Die Antworten konnten nicht gesendet werden: {error}",
    final_answered: "Diese Fragen wurden beantwortet.",
    final_cancelled: "Diese Fragen wurden abgebrochen.",
    final_lost: "Dein Agent wartet nicht mehr: Diese Fragen können nicht mehr beantwortet werden.",
    waiting: counted(
        "Dein Agent wartet auf deine Antworten.",
        "{n} Anfragen warten auf deine Antworten.",
    ),
    nothing_waiting: "Nichts wartet auf dich.",
    stopped: "ask-user wurde beendet: Hier kann nichts mehr beantwortet werden.",
    unreachable: "ask-user ist nicht erreichbar.",
    link_used: "Dieser Link wurde schon benutzt: Hol dir einen neuen Link dort, wo ask-user läuft.",
    no_session: "Öffne den Link, den ask-user ausgegeben hat: Diese Seite hat keine Sitzung.",
    reconnecting: "Die Verbindung zu ask-user wurde unterbrochen: Sie wird wiederhergestellt…",
    gone: "ask-user ist nicht mehr erreichbar: Diese Fragen können hier nicht mehr beantwortet \
           werden.",
    lost: "Die Verbindung zu ask-user ist verloren.",
    thousands_separator: ".",
    fell_behind: "Diese Seite kam mit den Änderungen nicht nach und wurde neu verbunden; sie zeigt die Fragen, wie sie jetzt sind.",
    question_count: counted("1 Frage", "{n} Fragen"),
    open_ask: "Öffnen",
    full_of_away: "Der Eingang ist voll: Fragen von Agenten, die gegangen sind, belegen ihn. Brich sie ab, um Platz für die anderen zu schaffen.",
    cancel_agent: "Alle {n} von {agent} abbrechen",
};

pub(super) static ES: PageText = PageText {
    title: "ask-user: preguntas",
    heading: "Preguntas de su agente",
    loading: "Cargando las preguntas…",
    asks_label: "Solicitudes",
    yes: "Sí",
    no: "No",
    questions_label: "Preguntas",
    ask_label: "Preguntas {n}",
    ask_label_from: "Preguntas {n} de {agent}",
    asker_in: "en {cwd}",
    asked_now: "preguntó hace un momento",
    asked_ago: "preguntó hace {n} min",
    question_tab: "Pregunta {n}",
    tab_answered: "{name}, respondida",
    tab_open: "{name}, sin responder",
    submit_tab: "✓ Enviar",
    note_label: "Nota sobre esta respuesta (opcional)",
    note: "Nota: {note}",
    choose_any: "Elija las que quiera. Lo que escriba en Otra se añade a su elección.",
    none_of_these: "Ninguna de estas",
    other: "Otra (escriba su respuesta)",
    own_answer: "Su propia respuesta a: {question}",
    own_answer_label: "Su propia respuesta",
    long_count: "La respuesta es larga ({n} caracteres): se le pedirá confirmación antes de enviarla.",
    answer_cap: "Una respuesta admite 64 KiB como máximo; el resto no se añadió.",
    long_answer: "La respuesta es larga ({n} caracteres). ¿Continuar de todos modos?",
    next: "Siguiente",
    submit: "Enviar",
    submit_answers: "Enviar respuestas",
    cancel: "Cancelar",
    review_title: "Revise sus respuestas",
    not_answered: "Aún sin responder",
    more_chars: counted("… 1 carácter más", "… {n} caracteres más"),
    open_count: counted(
        "Responda todas las preguntas antes de enviar (1 pendiente).",
        "Responda todas las preguntas antes de enviar ({n} pendientes).",
    ),
    all_answered: "Todo está respondido.",
    answer_all: "Responda todas las preguntas antes de enviar.",
    discard: counted("¿Descartar 1 respuesta?", "¿Descartar {n} respuestas?"),
    sent: "Sus respuestas se enviaron. Puede cerrar esta página.",
    cancelled: "Las preguntas se cancelaron.",
    not_delivered: "Sus respuestas no se entregaron:",
    saved_for_agent: "Guardado: su agente no está conectado ahora y lo recibirá cuando vuelva a preguntar.",
    send_unreachable: "No se pudieron enviar las respuestas: ask-user no está disponible. Siguen \
                       en esta página.",
    send_failed_status: "No se pudieron enviar las respuestas ({status}).",
    send_failed: "No se pudieron enviar las respuestas: {error}",
    final_answered: "Estas preguntas se respondieron.",
    final_cancelled: "Estas preguntas se cancelaron.",
    final_lost: "Su agente dejó de esperar: ya no se pueden responder estas preguntas.",
    waiting: counted(
        "Su agente espera sus respuestas.",
        "{n} solicitudes esperan sus respuestas.",
    ),
    nothing_waiting: "No hay nada pendiente.",
    stopped: "ask-user se detuvo: aquí ya no se puede responder nada.",
    unreachable: "ask-user no está disponible.",
    link_used: "Este enlace ya se usó: pida un enlace nuevo donde se ejecuta ask-user.",
    no_session: "Abra el enlace que mostró ask-user: esta página no tiene sesión.",
    reconnecting: "Se interrumpió la conexión con ask-user: reconectando…",
    gone: "ask-user ya no está disponible: estas preguntas ya no se pueden responder aquí.",
    lost: "Se perdió la conexión con ask-user.",
    thousands_separator: ".",
    fell_behind: "Esta página se quedó atrás de los cambios y se reconectó; muestra las preguntas tal como están ahora.",
    question_count: counted("1 pregunta", "{n} preguntas"),
    open_ask: "Abrir",
    full_of_away: "La bandeja está llena: la ocupan preguntas de agentes que se fueron. Cancélalas para dejar sitio a las demás.",
    cancel_agent: "Cancelar las {n} de {agent}",
};

pub(super) static FR: PageText = PageText {
    title: "ask-user : questions",
    heading: "Questions de votre agent",
    loading: "Chargement des questions…",
    asks_label: "Demandes",
    yes: "Oui",
    no: "Non",
    questions_label: "Questions",
    ask_label: "Questions {n}",
    ask_label_from: "Questions {n} de {agent}",
    asker_in: "dans {cwd}",
    asked_now: "demandé à l'instant",
    asked_ago: "demandé il y a {n} min",
    question_tab: "Question {n}",
    tab_answered: "{name}, répondu",
    tab_open: "{name}, sans réponse",
    submit_tab: "✓ Envoyer",
    note_label: "Note sur cette réponse (facultatif)",
    note: "Note : {note}",
    choose_any: "Choisissez-en autant que vous voulez. Ce que vous saisissez dans Autre s'ajoute à votre choix.",
    none_of_these: "Aucune de ces options",
    other: "Autre (saisissez votre réponse)",
    own_answer: "Votre propre réponse à : {question}",
    own_answer_label: "Votre propre réponse",
    long_count: "La réponse est longue ({n} caractères) : une confirmation sera demandée avant l'envoi.",
    answer_cap: "Une réponse contient au plus 64 Kio ; le reste a été ignoré.",
    long_answer: "La réponse est longue ({n} caractères). Continuer quand même ?",
    next: "Suivant",
    submit: "Envoyer",
    submit_answers: "Envoyer les réponses",
    cancel: "Annuler",
    review_title: "Vérifiez vos réponses",
    not_answered: "Pas encore de réponse",
    more_chars: counted("… 1 caractère de plus", "… {n} caractères de plus"),
    open_count: same("Répondez à chaque question avant d'envoyer ({n} sans réponse)."),
    all_answered: "Tout est répondu.",
    answer_all: "Répondez à chaque question avant d'envoyer.",
    discard: counted("Abandonner 1 réponse ?", "Abandonner {n} réponses ?"),
    sent: "Vos réponses ont été envoyées. Vous pouvez fermer cette page.",
    cancelled: "Les questions ont été annulées.",
    not_delivered: "Vos réponses n'ont pas été remises :",
    saved_for_agent: "Enregistré : votre agent n'est pas connecté pour l'instant, il le recevra quand il demandera à nouveau.",
    send_unreachable: "Les réponses n'ont pas pu être envoyées : ask-user est injoignable. Elles \
                       restent sur cette page.",
    send_failed_status: "Les réponses n'ont pas pu être envoyées ({status}).",
    send_failed: "Les réponses n'ont pas pu être envoyées : {error}",
    final_answered: "Ces questions ont reçu une réponse.",
    final_cancelled: "Ces questions ont été annulées.",
    final_lost: "Votre agent n'attend plus : ces questions ne peuvent plus recevoir de réponse.",
    waiting: counted(
        "Votre agent attend vos réponses.",
        "{n} demandes attendent vos réponses.",
    ),
    nothing_waiting: "Rien ne vous attend.",
    stopped: "ask-user s'est arrêté : plus rien ne peut recevoir de réponse ici.",
    unreachable: "ask-user est injoignable.",
    link_used: "Ce lien a déjà servi : demandez un nouveau lien là où ask-user tourne.",
    no_session: "Ouvrez le lien affiché par ask-user : cette page n'a pas de session.",
    reconnecting: "La connexion à ask-user a été interrompue : reconnexion…",
    gone: "ask-user n'est plus joignable : ces questions ne peuvent plus recevoir de réponse ici.",
    lost: "La connexion à ask-user a été perdue.",
    thousands_separator: "\u{202f}",
    fell_behind: "Cette page a pris du retard sur les changements et s'est reconnectée ; elle montre les questions telles qu'elles sont.",
    question_count: counted("1 question", "{n} questions"),
    open_ask: "Ouvrir",
    full_of_away: "La boîte est pleine : des questions d'agents partis l'occupent. Annulez-les pour faire de la place aux autres.",
    cancel_agent: "Annuler les {n} de {agent}",
};

pub(super) static JA: PageText = PageText {
    title: "ask-user: 質問",
    heading: "エージェントからの質問",
    loading: "質問を読み込んでいます…",
    asks_label: "依頼",
    yes: "はい",
    no: "いいえ",
    questions_label: "質問",
    ask_label: "質問 {n}",
    ask_label_from: "{agent} からの質問 {n}",
    asker_in: "{cwd} で",
    asked_now: "たった今の質問",
    asked_ago: "{n} 分前の質問",
    question_tab: "質問 {n}",
    tab_answered: "{name}、回答済み",
    tab_open: "{name}、未回答",
    submit_tab: "✓ 送信",
    note_label: "この回答へのメモ（任意）",
    note: "メモ: {note}",
    choose_any: "いくつでも選べます。「その他」に入力した内容は選択に追加されます。",
    none_of_these: "いずれも該当なし",
    other: "その他（自由入力）",
    own_answer: "「{question}」への自由回答",
    own_answer_label: "自由回答",
    long_count: "回答が長くなっています（{n} 文字）。送信前に確認します。",
    answer_cap: "回答は 64 KiB までです。残りは入力されませんでした。",
    long_answer: "回答が長くなっています（{n} 文字）。このまま続けますか？",
    next: "次へ",
    submit: "送信",
    submit_answers: "回答を送信",
    cancel: "キャンセル",
    review_title: "回答の確認",
    not_answered: "未回答",
    more_chars: same("… ほか {n} 文字"),
    open_count: same("送信する前にすべての質問に回答してください（未回答 {n} 件）。"),
    all_answered: "すべて回答済みです。",
    answer_all: "送信する前にすべての質問に回答してください。",
    discard: same("{n} 件の回答を破棄しますか？"),
    sent: "回答を送信しました。このページは閉じてかまいません。",
    cancelled: "質問はキャンセルされました。",
    not_delivered: "回答は届けられませんでした:",
    saved_for_agent: "保存しました: エージェントは今つながっていません。次に尋ねたときに受け取ります。",
    send_unreachable: "回答を送信できませんでした: ask-user に接続できません。回答はこのページに\
                       残っています。",
    send_failed_status: "回答を送信できませんでした（{status}）。",
    send_failed: "回答を送信できませんでした: {error}",
    final_answered: "これらの質問には回答済みです。",
    final_cancelled: "これらの質問はキャンセルされました。",
    final_lost: "エージェントが待つのをやめました: これらの質問にはもう回答できません。",
    waiting: counted(
        "エージェントが回答を待っています。",
        "{n} 件の依頼が回答を待っています。",
    ),
    nothing_waiting: "待っている質問はありません。",
    stopped: "ask-user は停止しました: ここではもう何も回答できません。",
    unreachable: "ask-user に接続できません。",
    link_used: "このリンクは使用済みです: ask-user を実行している場所で新しいリンクを取得して\
                ください。",
    no_session: "ask-user が表示したリンクを開いてください: このページにはセッションがありま\
                 せん。",
    reconnecting: "ask-user との接続が途切れました: 再接続しています…",
    gone: "ask-user に接続できなくなりました: これらの質問にはここでもう回答できません。",
    lost: "ask-user との接続が失われました。",
    thousands_separator: ",",
    fell_behind: "このページは変更に追いつけず、再接続しました。現在の質問を表示しています。",
    question_count: counted("質問 1 件", "質問 {n} 件"),
    open_ask: "開く",
    full_of_away: "受信箱がいっぱいです。去ったエージェントの質問が場所を占めています。取り消すと他の質問の場所ができます。",
    cancel_agent: "{agent} の {n} 件をすべて取り消す",
};

pub(super) static ZH: PageText = PageText {
    title: "ask-user：问题",
    heading: "来自智能体的问题",
    loading: "正在加载问题…",
    asks_label: "请求",
    yes: "是",
    no: "否",
    questions_label: "问题",
    ask_label: "问题 {n}",
    ask_label_from: "来自 {agent} 的问题 {n}",
    asker_in: "位于 {cwd}",
    asked_now: "刚刚提问",
    asked_ago: "{n} 分钟前提问",
    question_tab: "问题 {n}",
    tab_answered: "{name}，已回答",
    tab_open: "{name}，未回答",
    submit_tab: "✓ 提交",
    note_label: "对此回答的备注（可选）",
    note: "备注：{note}",
    choose_any: "可多选。在“其他”中输入的内容会加到你的选择中。",
    none_of_these: "以上都不是",
    other: "其他（请输入）",
    own_answer: "你对“{question}”的回答",
    own_answer_label: "你的回答",
    long_count: "回答较长（{n} 个字符）。发送前会请你确认。",
    answer_cap: "回答最多 64 KiB，其余部分未输入。",
    long_answer: "回答较长（{n} 个字符）。仍要继续吗？",
    next: "下一步",
    submit: "提交",
    submit_answers: "提交回答",
    cancel: "取消",
    review_title: "检查你的回答",
    not_answered: "尚未回答",
    more_chars: same("… 还有 {n} 个字符"),
    open_count: same("提交前请回答所有问题（还有 {n} 个未回答）。"),
    all_answered: "已全部回答。",
    answer_all: "提交前请回答所有问题。",
    discard: same("放弃 {n} 个回答？"),
    sent: "你的回答已发送。可以关闭此页面了。",
    cancelled: "这些问题已取消。",
    not_delivered: "你的回答未能送达：",
    saved_for_agent: "已保存：你的代理现在未连接，它再次询问时会收到。",
    send_unreachable: "无法发送回答：无法连接 ask-user。回答仍保留在此页面上。",
    send_failed_status: "无法发送回答（{status}）。",
    send_failed: "无法发送回答：{error}",
    final_answered: "这些问题已回答。",
    final_cancelled: "这些问题已取消。",
    final_lost: "智能体已不再等待：这些问题无法再回答。",
    waiting: counted("智能体正在等待你的回答。", "{n} 个请求正在等待你的回答。"),
    nothing_waiting: "没有等待你回答的问题。",
    stopped: "ask-user 已停止：这里无法再回答任何问题。",
    unreachable: "无法连接 ask-user。",
    link_used: "此链接已被使用：请在运行 ask-user 的地方获取新链接。",
    no_session: "请打开 ask-user 打印的链接：此页面没有会话。",
    reconnecting: "与 ask-user 的连接已中断：正在重新连接…",
    gone: "已无法连接 ask-user：这些问题无法再在此回答。",
    lost: "与 ask-user 的连接已断开。",
    thousands_separator: ",",
    fell_behind: "此页面跟不上变化，已重新连接；显示的是当前的问题。",
    question_count: counted("1 个问题", "{n} 个问题"),
    open_ask: "打开",
    full_of_away: "收件箱已满：已离开的智能体的请求占满了空间。取消它们，为其他请求腾出空间。",
    cancel_agent: "取消 {agent} 的全部 {n} 个请求",
};
