/**
 * A tree-sitter grammar for arbiter rule files (`.rules`), for highlighting
 * in Helix, Neovim and Zed. It follows grammar/arbiter.pest (the language's
 * own grammar): a file is a list of items; an item is a property
 * (`key: values`) or a section (`kind "label" ... { items }`, optionally
 * `replace kind ...`). Newlines carry no meaning: a property's values end
 * where the next `key:` or section head or `}` begins.
 *
 * Build: `tree-sitter generate` (src/parser.c is committed, so that
 * editors and `cargo test` need no generator).
 */

const PREC = {
  or: 1,
  and: 2,
  not: 3,
  compare: 4,
  add: 5,
  mul: 6,
  neg: 7,
  field: 8,
  call: 9,
};

// Values are expressions, separated by spaces.
const list = ($, open, close) => seq(open, repeat(seq($._expression, optional(','))), close);

module.exports = grammar({
  name: 'arbiter',

  extras: $ => [/\s/, $.comment],

  word: $ => $.word,

  // A word after a property's values may be one more value or the kind of
  // the next section: only a `{` after the labels tells (the parser keeps
  // both readings until then).
  conflicts: $ => [[$.property]],


  rules: {
    source_file: $ => repeat($._item),

    _item: $ => choice($.section, $.property),

    section: $ => seq(
      optional('replace'),
      field('kind', $.word),
      repeat(field('label', $.string)),
      '{',
      repeat($._item),
      '}',
    ),

    property: $ => seq(field('key', $.key), repeat($._expression)),

    // `name:` is one token, so that a key is never read as a value.
    key: $ => token(seq(/[A-Za-z_][A-Za-z0-9_\-]*/, /[ \t\r\n]*/, ':')),

    _expression: $ => choice(
      $.binary_expression,
      $.unary_expression,
      $.field_expression,
      $.call,
      $.range,
      $.parenthesized,
      $.list,
      $.number,
      $.string,
      $.word,
    ),

    binary_expression: $ => {
      const table = [
        [PREC.or, 'or'],
        [PREC.and, 'and'],
        [PREC.compare, choice('==', '!=', '<=', '>=', '<', '>', 'in', seq('not', 'in'))],
        [PREC.add, choice('+', '-')],
        [PREC.mul, choice('*', '/', '%')],
      ];
      return choice(...table.map(([p, op]) =>
        prec.left(p, seq(field('left', $._expression), field('operator', op), field('right', $._expression)))));
    },

    unary_expression: $ => choice(
      prec(PREC.not, seq('not', $._expression)),
      prec(PREC.neg, seq('-', $._expression)),
    ),

    field_expression: $ => prec(PREC.field, seq($._expression, '.', field('field', $.word))),

    call: $ => prec(PREC.call, seq(field('function', $.word), list($, '(', ')'))),

    range: $ => prec(PREC.call, seq(choice($.number, $.word), '..', choice($.number, $.word))),

    parenthesized: $ => seq('(', $._expression, ')'),

    list: $ => list($, '[', ']'),

    number: _ => token(prec(1, /[0-9]+/)),

    // Words are names (ranks, balls, players): `Invite-the-Neighbours`
    // is one word; `2H` is a word.
    word: _ => /[A-Za-z0-9_][A-Za-z0-9_'\-]*/,

    string: _ => token(choice(
      seq('"""', /([^"]|"[^"]|""[^"])*/, '"""'),
      seq('"', /([^"\\\n]|\\.)*/, '"'),
    )),

    comment: _ => token(seq('#', /[^\n]*/)),
  },
});
