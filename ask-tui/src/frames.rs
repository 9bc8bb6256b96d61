//! The frames of the terminal UI on the terminal: each frame is drawn into a buffer of cells, and only the cells
//! that differ from what the terminal already shows are written.
//!
//! The first frame goes onto a blank screen (the alternate screen, just entered), so it needs
//! one buffer and no comparison: every cell that is not blank is written. From the second frame
//! on, the frame shown is kept to compare the next one with, and the two buffers swap.

use std::io::{self, Write};

use crossterm::cursor::MoveTo;
use crossterm::queue;
use crossterm::style::{
    Attribute, Color as TermColor, Colors, Print, SetAttribute, SetBackgroundColor, SetColors,
    SetForegroundColor,
};
use crossterm::terminal::{self, Clear, ClearType};
use ratatui::buffer::{Buffer, Cell, CellDiffOption};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

/// The terminal and the frame it shows.
pub(crate) struct Frames<W: Write> {
    out: W,
    /// The area of a terminal that reports no size; `None` asks the terminal at every frame.
    fixed: Option<Rect>,
    /// What the terminal shows; `None` while it is blank.
    shown: Option<Buffer>,
    /// The buffer of the frame before, kept for its memory.
    spare: Option<Buffer>,
}

impl<W: Write> Frames<W> {
    /// Frames drawn on `out`, which must be blank now. A terminal that reports no size (some bare
    /// pseudo-terminals) gets a fixed 80×24.
    pub(crate) fn new(out: W) -> Frames<W> {
        let fixed = match terminal::size() {
            Ok((w, h)) if w > 0 && h > 0 => None,
            _ => Some(Rect::new(0, 0, 80, 24)),
        };
        Frames {
            out,
            fixed,
            shown: None,
            spare: None,
        }
    }

    fn area(&self) -> io::Result<Rect> {
        match self.fixed {
            Some(area) => Ok(area),
            None => terminal::size().map(|(w, h)| Rect::new(0, 0, w, h)),
        }
    }

    /// Draws a frame of the terminal's present size with `render`, and writes what changed.
    pub(crate) fn draw(&mut self, render: impl FnOnce(Rect, &mut Buffer)) -> io::Result<()> {
        let area = self.area()?;
        if self.shown.as_ref().is_some_and(|shown| shown.area != area) {
            // The terminal changed size: what it shows is rewrapped or cut, so start again.
            self.clear()?;
        }
        let mut next = match self.spare.take() {
            Some(mut spare) if spare.area == area => {
                spare.reset();
                spare
            }
            _ => Buffer::empty(area),
        };
        render(area, &mut next);
        match &self.shown {
            Some(shown) => write_cells(&mut self.out, shown.diff(&next).into_iter())?,
            None => write_cells(&mut self.out, not_blank(&next))?,
        }
        self.out.flush()?;
        self.spare = self.shown.replace(next);
        Ok(())
    }

    /// Clears the terminal, so that the next frame is drawn whole.
    pub(crate) fn clear(&mut self) -> io::Result<()> {
        queue!(self.out, Clear(ClearType::All))?;
        self.shown = None;
        self.spare = None;
        Ok(())
    }

    /// The terminal, for writing around the frames.
    pub(crate) fn out(&mut self) -> &mut W {
        &mut self.out
    }
}

/// The cells of `buffer` to write onto a blank screen: those that are not blank, except the
/// cells a wide character before them covers and those marked to be left alone. The same cells
/// as ratatui's comparison with a blank buffer, without making one.
fn not_blank(buffer: &Buffer) -> impl Iterator<Item = (u16, u16, &Cell)> {
    let width = usize::from(buffer.area.width.max(1));
    let mut covered = 0;
    buffer
        .content
        .iter()
        .enumerate()
        .filter_map(move |(index, cell)| {
            let shown =
                covered == 0 && *cell != Cell::EMPTY && cell.diff_option != CellDiffOption::Skip;
            covered = if covered > 0 {
                covered - 1
            } else {
                cell.symbol().width().saturating_sub(1)
            };
            if index % width == width - 1 {
                // A wide character never covers the start of the next row.
                covered = 0;
            }
            let x = buffer.area.x + (index % width) as u16;
            let y = buffer.area.y + (index / width) as u16;
            shown.then_some((x, y, cell))
        })
}

/// Writes `cells` with the fewest cursor moves and style changes, then leaves the style as the
/// terminal's default.
fn write_cells<'a>(
    out: &mut impl Write,
    cells: impl Iterator<Item = (u16, u16, &'a Cell)>,
) -> io::Result<()> {
    let mut fg = Color::Reset;
    let mut bg = Color::Reset;
    let mut modifier = Modifier::empty();
    let mut cursor = None;
    for (x, y, cell) in cells {
        if cursor != Some((x, y)) {
            queue!(out, MoveTo(x, y))?;
        }
        // The terminal's cursor is one column on, or two after a wide character (if the
        // terminal agrees on its width): after one, the next cell is reached by a move.
        cursor = Some((x.saturating_add(1), y));
        if cell.modifier != modifier {
            write_modifier_change(out, modifier, cell.modifier)?;
            modifier = cell.modifier;
        }
        if cell.fg != fg || cell.bg != bg {
            queue!(
                out,
                SetColors(Colors::new(term_color(cell.fg), term_color(cell.bg)))
            )?;
            fg = cell.fg;
            bg = cell.bg;
        }
        queue!(out, Print(cell.symbol()))?;
    }
    queue!(
        out,
        SetForegroundColor(TermColor::Reset),
        SetBackgroundColor(TermColor::Reset),
        SetAttribute(Attribute::Reset)
    )
}

/// The attributes to turn off and on to go from `from` to `to`.
fn write_modifier_change(out: &mut impl Write, from: Modifier, to: Modifier) -> io::Result<()> {
    let removed = from - to;
    let added = to - from;
    let off = [
        (Modifier::REVERSED, Attribute::NoReverse),
        (Modifier::ITALIC, Attribute::NoItalic),
        (Modifier::UNDERLINED, Attribute::NoUnderline),
        (Modifier::CROSSED_OUT, Attribute::NotCrossedOut),
        (Modifier::HIDDEN, Attribute::NoHidden),
    ];
    for (flag, attribute) in off {
        if removed.contains(flag) {
            queue!(out, SetAttribute(attribute))?;
        }
    }
    if removed.intersects(Modifier::SLOW_BLINK | Modifier::RAPID_BLINK) {
        queue!(out, SetAttribute(Attribute::NoBlink))?;
    }
    // Bold and dim have one attribute that turns both off: what stays is turned on again.
    let mut on = added;
    if removed.intersects(Modifier::BOLD | Modifier::DIM) {
        queue!(out, SetAttribute(Attribute::NormalIntensity))?;
        on |= to & (Modifier::BOLD | Modifier::DIM);
    }
    let on_attributes = [
        (Modifier::BOLD, Attribute::Bold),
        (Modifier::DIM, Attribute::Dim),
        (Modifier::ITALIC, Attribute::Italic),
        (Modifier::UNDERLINED, Attribute::Underlined),
        (Modifier::SLOW_BLINK, Attribute::SlowBlink),
        (Modifier::RAPID_BLINK, Attribute::RapidBlink),
        (Modifier::REVERSED, Attribute::Reverse),
        (Modifier::HIDDEN, Attribute::Hidden),
        (Modifier::CROSSED_OUT, Attribute::CrossedOut),
    ];
    for (flag, attribute) in on_attributes {
        if on.contains(flag) {
            queue!(out, SetAttribute(attribute))?;
        }
    }
    Ok(())
}

/// The terminal's name for a colour: ratatui's plain colours are the terminal's dark ones, and
/// its light colours the terminal's bright ones.
fn term_color(color: Color) -> TermColor {
    match color {
        Color::Reset => TermColor::Reset,
        Color::Black => TermColor::Black,
        Color::Red => TermColor::DarkRed,
        Color::Green => TermColor::DarkGreen,
        Color::Yellow => TermColor::DarkYellow,
        Color::Blue => TermColor::DarkBlue,
        Color::Magenta => TermColor::DarkMagenta,
        Color::Cyan => TermColor::DarkCyan,
        Color::Gray => TermColor::Grey,
        Color::DarkGray => TermColor::DarkGrey,
        Color::LightRed => TermColor::Red,
        Color::LightGreen => TermColor::Green,
        Color::LightYellow => TermColor::Yellow,
        Color::LightBlue => TermColor::Blue,
        Color::LightMagenta => TermColor::Magenta,
        Color::LightCyan => TermColor::Cyan,
        Color::White => TermColor::White,
        Color::Indexed(index) => TermColor::AnsiValue(index),
        Color::Rgb(r, g, b) => TermColor::Rgb { r, g, b },
    }
}

#[cfg(test)]
mod tests {
    use ratatui::style::Style;

    use super::*;

    fn screen(area: Rect) -> Frames<Vec<u8>> {
        Frames {
            out: Vec::new(),
            fixed: Some(area),
            shown: None,
            spare: None,
        }
    }

    fn take(screen: &mut Frames<Vec<u8>>) -> String {
        String::from_utf8(std::mem::take(&mut screen.out)).unwrap()
    }

    const RESET: &str = "\x1b[39m\x1b[49m\x1b[0m";

    #[test]
    fn the_first_frame_writes_only_what_is_not_blank() {
        let mut screen = screen(Rect::new(0, 0, 10, 3));
        screen
            .draw(|_, buf| {
                buf.set_string(2, 0, "ab", Style::new());
                buf.set_string(0, 2, "c", Style::new());
            })
            .unwrap();
        // 1-based positions: row 1 column 3, then row 3 column 1.
        assert_eq!(take(&mut screen), format!("\x1b[1;3Hab\x1b[3;1Hc{RESET}"));
    }

    #[test]
    fn a_later_frame_writes_only_the_cells_that_changed() {
        let mut screen = screen(Rect::new(0, 0, 10, 2));
        let frame = |word: &'static str| {
            move |_: Rect, buf: &mut Buffer| {
                buf.set_string(0, 0, "Which one?", Style::new());
                buf.set_string(0, 1, word, Style::new());
            }
        };
        screen.draw(frame("> one")).unwrap();
        take(&mut screen);
        screen.draw(frame("> two")).unwrap();
        assert_eq!(take(&mut screen), format!("\x1b[2;3Htwo{RESET}"));
        screen.draw(frame("> two")).unwrap();
        assert_eq!(take(&mut screen), RESET);
    }

    #[test]
    fn a_wide_character_is_written_once_and_its_second_column_skipped() {
        let mut screen = screen(Rect::new(0, 0, 6, 1));
        screen
            .draw(|_, buf| {
                buf.set_string(0, 0, "日x本", Style::new());
            })
            .unwrap();
        // The column after a wide character is found by a move, not by the terminal's idea of
        // the character's width, which may differ from ours.
        assert_eq!(take(&mut screen), format!("\x1b[1;1H日\x1b[1;3Hx本{RESET}"));
    }

    #[test]
    fn styles_change_only_where_they_differ_and_end_reset() {
        let mut screen = screen(Rect::new(0, 0, 4, 1));
        screen
            .draw(|_, buf| {
                let bold = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
                buf.set_string(0, 0, "ab", bold);
                buf.set_string(2, 0, "c", Style::new().add_modifier(Modifier::DIM));
            })
            .unwrap();
        assert_eq!(
            take(&mut screen),
            format!("\x1b[1;1H\x1b[1m\x1b[38;5;3;49mab\x1b[22m\x1b[2m\x1b[39;49mc{RESET}")
        );
    }

    #[test]
    fn the_first_frame_is_what_a_comparison_with_a_blank_screen_gives() {
        let mut input = crate::showcase_input();
        input.questions[0].question = "Которую? 日本語の質問 👍🏽 e\u{301} 🇫🇷 ✔\u{fe0f} done".into();
        for (width, height) in [(80, 24), (33, 12), (120, 40)] {
            let state = crate::State::new(&input);
            let area = Rect::new(0, 0, width, height);
            let mut next = Buffer::empty(area);
            crate::render(&state, area, &mut next);
            let expected: Vec<_> = Buffer::empty(area).diff(&next);
            let written: Vec<_> = not_blank(&next).collect();
            assert_eq!(written, expected, "at {width}×{height}");
        }
    }

    #[test]
    fn a_new_size_clears_the_screen_and_draws_the_frame_whole() {
        let mut screen = screen(Rect::new(0, 0, 4, 1));
        screen
            .draw(|_, buf| {
                buf.set_string(0, 0, "ab", Style::new());
            })
            .unwrap();
        take(&mut screen);
        screen.fixed = Some(Rect::new(0, 0, 3, 1));
        screen
            .draw(|_, buf| {
                buf.set_string(0, 0, "ab", Style::new());
            })
            .unwrap();
        assert_eq!(take(&mut screen), format!("\x1b[2J\x1b[1;1Hab{RESET}"));
    }
}
