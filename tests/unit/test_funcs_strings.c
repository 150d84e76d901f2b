/* tests/unit/test_funcs_strings.c — unit tests of the Sprig string and regex functions (tmpl/funcs_strings.c, tmpl/funcs_regex.c):
 * corner cases the conformance vectors miss, with goldens from the real Helm
 * v4.1.4 (see funcs_golden.h), plus limits and randomness checks. */
#include "tests/unit/funcs_golden.h"
#include "tests/unit/unit_util.h"

/* Generated from helm v4.1.4 output. */
static const fgolden goldens[] = {
	{"title_digraph", "{{ title \"\307\206emo d\305\276ungle\" }}|{{ upper \"\307\206\" }}|{{ lower \"\307\205\" }}", "{}", 0, "\307\205emo D\305\276ungle|\307\204|\307\206"},
	{"case_simple", "{{ lower \"\316\243\316\221\316\243\" }}|{{ upper \"\357\254\201x\" }}|{{ upper \"\303\237\" }}|{{ lower \"\304\260\" }}|{{ upper \"\307\260\" }}", "{}", 0, "\317\203\316\261\317\203|\357\254\201X|\303\237|i|\307\260"},
	{"swapcase_title", "{{ swapcase \"\307\205a \307\204b \307\206c\" }}|{{ swapcase \"a\\u00a0b\" }}", "{}", 0, "\307\206A \307\206B \307\205C|A\302\240B"},
	{"untitle_words", "{{ untitle \"Hello World\\tFoo\" }}|{{ untitle \"\303\211COLE\" }}", "{}", 0, "hello world\tfoo|\303\251COLE"},
	{"trim_unicode", "[{{ trim \"\\u00a0\\u3000 x \\u2029\" }}]|[{{ trim \"\\u0085a\\u0085\" }}]|[{{ trim \"\\u200bx\" }}]", "{}", 0, "[x]|[a]|[\342\200\213x]"},
	{"trimall_unicode", "{{ trimAll \"\303\251a\" \"\303\251ax\303\251a\303\251\" }}|{{ trimAll \"ab\" \"abcba\" }}|{{ trimAll \"\" \"  x \" }}", "{}", 0, "x|c|  x "},
	{"replace_empty_old", "{{ replace \"\" \"-\" \"\346\227\245\346\234\254\" }}|{{ replace \"a\" \"\" \"banana\" }}|{{ replace \"aa\" \"b\" \"aaaaa\" }}", "{}", 0, "-\346\227\245-\346\234\254-|bnn|bba"},
	{"splitn_forms", "{{ splitn \",\" -1 \"a,b,c\" | toJson }}|{{ splitn \"\" 2 \"abc\" | toJson }}|{{ splitn \",\" 1 \"a,b\" | toJson }}", "{}", 0, "{\"_0\":\"a\",\"_1\":\"b\",\"_2\":\"c\"}|{\"_0\":\"a\",\"_1\":\"bc\"}|{\"_0\":\"a,b\"}"},
	{"splitlist_forms", "{{ splitList \"\" \"\346\227\245\346\234\254\" | toJson }}|{{ splitList \",\" \",a,\" | toJson }}|{{ splitList \"ab\" \"xabyab\" | len }}", "{}", 0, "[\"\346\227\245\",\"\346\234\254\"]|[\"\",\"a\",\"\"]|3"},
	{"substr_multibyte", "{{ substr 3 6 \"\346\227\245\346\234\254\350\252\236\" }}|{{ substr 1 -5 \"abc\" }}|{{ substr -3 2 \"abc\" }}", "{}", 0, "\346\234\254|bc|ab"},
	{"wrap_mixed", "{{ wrap 8 \"short averyveryverylongword end\" | toJson }}|{{ wrapWith 4 \"|\" \"abcdefghij kl\" }}", "{}", 0, "\"short\\naveryveryverylongword\\nend\"|abcd|efgh|ij|kl"},
	{"case_tricky1", "{{ snakecase \"HTTP2Server\" }}|{{ snakecase \"Bld4Floor3rd\" }}|{{ snakecase \"a__b\" }}|{{ snakecase \"_\" }}|{{ snakecase \"x-Y_z\" }}", "{}", 0, "http2_server|bld4_floor_3rd|a__b|_|x_y_z"},
	{"case_tricky2", "{{ kebabcase \"\346\227\245\346\234\254Go\" }}|{{ kebabcase \"\303\200BC\" }}|{{ kebabcase \"HTTP20xOK\" }}|{{ kebabcase \"Duration2m3s\" }}|[{{ kebabcase \"  \" }}]", "{}", 0, "\346\227\245\346\234\254-go|\303\240bc|http-20x-ok|duration-2m3s|[--]"},
	{"case_tricky3", "{{ camelcase \"_\" }}|{{ camelcase \"a\" }}|{{ camelcase \"a__b\" }}|{{ camelcase \"-x-\" }}|{{ camelcase \"GOLANG_IS_GREAT\" }}|{{ camelcase \"\346\227\245\346\234\254_go\" }}", "{}", 0, "__|A|A_B|-X-|GolangIsGreat|\346\227\245\346\234\254Go"},
	{"nospace_latin1", "{{ nospace \"a\\u0085b c\" | b64enc }}|{{ nospace \"\346\227\245\346\234\254\" }}|{{ nospace \"\346\227\245 \346\234\254\" | b64enc }}", "{}", 0, "YcOCYmM=|\346\227\245\346\234\254|w6bCl8Klw6bCnMKs"},
	{"initials_tabs", "{{ initials \"a\\tbc\\nde  f\" }}|{{ initials \"\303\261u x\" | b64enc }}", "{}", 0, "abdf|w4N4"},
	{"indent_forms", "{{ indent 0 \"a\\nb\" | toJson }}|{{ nindent 2 \"a\\r\\nb\\n\" | toJson }}|{{ indent 3 \"\" | toJson }}", "{}", 0, "\"a\\nb\"|\"\\n  a\\r\\n  b\\n  \"|\"   \""},
	{"quote_kinds", "{{ quote (list 1 \"a\") (dict \"k\" 2) 1.5 true }}|{{ squote (list 1 nil) nil 3 }}|{{ cat \"a\" nil (list) 2 }}", "{}", 0, "\"[1 a]\" \"map[k:2]\" \"1.5\" \"true\"|'[1 <nil>]' '3'|a [] 2"},
	{"abbrevboth_more", "{{ abbrevboth 7 10 \"abcdefghijklmnopqrstuvwxyz\" }}|{{ abbrevboth 20 10 \"abcdefghijklmnopqrstuvwxyz\" }}|{{ abbrevboth 4 4 \"abcdefghij\" }}", "{}", 0, "...hijk...|...tuvwxyz|abcdefghij"},
	{"tostrings_mixed", "{{ toStrings (list nil 1 \"a\" 2.5 (list 1)) | toJson }}|{{ toStrings \"x\" | toJson }}|{{ toStrings nil | toJson }}|{{ join \"-\" (until 3) }}", "{}", 0, "[\"1\",\"a\",\"2.5\",\"[1]\"]|[\"x\"]|[]|0-1-2"},
	{"sortalpha_ints", "{{ sortAlpha (list 10 9 \"b\" \"B\" 1.5) }}|{{ sortAlpha \"z\" }}|{{ sortAlpha nil }}", "{}", 0, "[1.5 10 9 B b]|[z]|[<nil>]"},
	{"trunc_abbrev_edge", "{{ trunc -3 \"ab\" }}|{{ abbrev 4 \"abcd\" }}|{{ abbrev 4 \"abcde\" }}", "{}", 0, "ab|abcd|a..."},
	{"contains_prefix", "{{ contains \"\" \"\" }}{{ hasPrefix \"\" \"x\" }}{{ hasSuffix \"xy\" \"y\" }}", "{}", 0, "truetruefalse"},
	{"repeat_zero", "[{{ repeat 0 \"ab\" }}]|{{ repeat 3 \"\" | len }}|{{ repeat 2 \"\346\227\245\" }}", "{}", 0, "[]|0|\346\227\245\346\227\245"},
	{"re_named_expand", "{{ regexReplaceAll \"(?P<first>\\\\w+) (?P<last>\\\\w+)\" \"John Smith\" \"${last}, $first!\" }}|{{ regexReplaceAll \"(a)\" \"a\" \"$1x\" }}|{{ regexReplaceAll \"(a)\" \"a\" \"${1}x$\" }}", "{}", 0, "Smith, John!||ax$"},
	{"re_cached_reuse", "{{ range list \"John Smith\" \"Ada Lovelace x\" \"none\" }}{{ regexReplaceAll \"(?P<first>\\\\w+) (?P<last>\\\\w+)\" . \"${last}, $first\" }}|{{ regexFindAll \"(?P<first>\\\\w+) (?P<last>\\\\w+)\" . -1 | toJson }}|{{ regexSplit \"(?P<first>\\\\w+) (?P<last>\\\\w+)\" . -1 | toJson }}|{{ regexMatch \"(?P<first>\\\\w+) (?P<last>\\\\w+)\" . }};{{ end }}", "{}", 0, "Smith, John|[\"John Smith\"]|[\"\",\"\"]|true;Lovelace, Ada x|[\"Ada Lovelace\"]|[\"\",\" x\"]|true;none|null|[\"none\"]|false;"},
	{"re_findall_empty", "{{ regexFindAll \"a*\" \"baaab\" 2 | toJson }}|{{ regexFindAll \"\" \"\346\227\245\346\234\254\" -1 | toJson }}|{{ regexFindAll \"(?i)\303\211\" \"\303\251\303\211e\" -1 | toJson }}", "{}", 0, "[\"\",\"aaa\"]|[\"\",\"\",\"\"]|[\"\303\251\",\"\303\211\"]"},
	{"re_split_more", "{{ regexSplit \"a\" \"abab\" 2 | toJson }}|{{ regexSplit \"x*\" \"axbc\" -1 | toJson }}|{{ regexSplit \"\" \"\" -1 | toJson }}", "{}", 0, "[\"\",\"bab\"]|[\"a\",\"b\",\"c\"]|[]"},
	{"re_classes", "{{ regexFind \"[[:alpha:]]+\" \"h\303\251llo\" }}|{{ regexFind \"\\\\pL+\" \"h\303\251llo1\" }}|{{ regexFind \"[^\\\\d\\\\s]+\" \"12 ab3\" }}|{{ regexFind \"\\\\w+\" \"\303\251ab\" }}", "{}", 0, "h|h\303\251llo|ab|ab"},
	{"re_ungreedy", "{{ regexFind \"(?U)a+\" \"aaa\" }}|{{ regexFind \"a+?b\" \"aab\" }}|{{ regexFind \"a{2,}\" \"aaaa\" }}|{{ regexFind \"x{,3}\" \"x{,3}\" }}|{{ regexFind \"a{0}b\" \"ab\" }}", "{}", 0, "a|aab|aaaa|x{,3}|b"},
	{"re_anchors", "{{ regexMatch \"a$\" \"a\\n\" }}|{{ regexMatch \"(?m)a$\" \"a\\n\" }}|{{ regexMatch \"\\\\Aa\\\\z\" \"a\" }}|{{ regexReplaceAll \"\\\\b\" \"ab cd\" \"|\" }}", "{}", 0, "false|true|true||ab| |cd|"},
	{"re_fold", "{{ regexMatch \"(?i)k\" \"\\u212a\" }}|{{ regexMatch \"(?i)\303\237\" \"\341\272\236\" }}|{{ regexMatch \"(?i)\317\203\" \"\317\202\" }}", "{}", 0, "true|true|true"},
	{"re_escapes", "{{ regexFind \"\\\\x41\\\\x{42}\\\\101\\\\t\" \"ABA\\t\" | toJson }}|{{ regexMatch \"\\\\Q.*\\\\E\" \".*\" }}|{{ regexMatch \"\\\\_\" \"_\" }}", "{}", 0, "\"ABA\\t\"|true|true"},
	{"re_flags_group", "{{ regexFind \"(?i:A)b\" \"ab AB\" }}|{{ regexFind \"(?s).+\" \"a\\nb\" | toJson }}|{{ regexFind \"(?i)a(?-i)b\" \"AB Ab\" }}|{{ regexMatch \"(?)a\" \"a\" }}", "{}", 0, "ab|\"a\\nb\"|Ab|true"},
	{"re_err_nested", "{{ mustRegexMatch \"a**\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"a**\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid nested repetition operator: `**`"},
	{"re_err_nested2", "{{ mustRegexMatch \"a{2}{3}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"a{2}{3}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid nested repetition operator: `{2}{3}`"},
	{"re_unicode_names", "{{ regexFindAll \"\\\\p{Letter}+|\\\\p{digit}\" \"aZ1 \316\251-\" -1 | toJson }}|{{ regexFindAll \"[\\\\p{^Uppercase_Letter}\\\\p{greek}]+\" \"aZ\316\251b\" -1 | toJson }}|{{ regexFindAll \"\\\\P{Assigned}|\\\\p{Ascii}+\" \"ab\\u0378\303\251\" -1 | toJson }}|{{ regexFindAll \"[\\\\P{Ascii}]+|\\\\pl\" \"ab\303\251\344\270\255\" -1 | toJson }}|{{ regexFindAll \"\\\\p{Lc}+\\\\p{cased letter}\\\\p{ Close-Punctuation }\" \"abc)\" -1 | toJson }}", "{}", 0, "[\"aZ\",\"1\",\"\316\251\"]|[\"a\",\"\316\251b\"]|[\"ab\",\"\315\270\"]|[\"a\",\"b\",\"\303\251\344\270\255\"]|[\"abc)\"]"},
	{"re_err_script_name", "{{ mustRegexMatch \"\\\\p{SignWriting}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"\\\\p{SignWriting}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid character class range: `\\p{SignWriting}`"},
	{"re_err_script_in_class", "{{ mustRegexMatch \"[a\\\\p{Old_Italic}]\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"[a\\\\p{Old_Italic}]\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid character class range: `\\p{Old_Italic}`"},
	{"re_err_empty_name", "{{ mustRegexMatch \"\\\\p{^}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"\\\\p{^}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid character class range: `\\p{^}`"},
	{"re_err_backref", "{{ mustRegexMatch \"(a)\\\\1\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(a)\\\\1\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid escape sequence: `\\1`"},
	{"re_err_octal8", "{{ mustRegexMatch \"\\\\8\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"\\\\8\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid escape sequence: `\\8`"},
	{"re_err_flag_x", "{{ mustRegexMatch \"(?x)a\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?x)a\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid or unsupported Perl syntax: `(?x`"},
	{"re_err_range", "{{ mustRegexMatch \"[z-a]\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"[z-a]\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid character class range: `z-a`"},
	{"re_err_repeat_big", "{{ mustRegexMatch \"a{1001}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"a{1001}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid repeat count: `{1001}`"},
	{"re_err_named", "{{ mustRegexMatch \"(?P<>x)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?P<>x)\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid named capture: `(?P<>`"},
	{"re_err_named2", "{{ mustRegexMatch \"(?P<a-b>x)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?P<a-b>x)\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid named capture: `(?P<a-b>`"},
	{"re_err_unexpected", "{{ mustRegexMatch \"x)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"x)\" \"a\">: error calling mustRegexMatch: error parsing regexp: unexpected ): `x)`"},
	{"re_err_posix", "{{ mustRegexMatch \"[[:foo:]]\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"[[:foo:]]\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid character class range: `[:foo:]`"},
	{"re_err_escape_c", "{{ mustRegexMatch \"\\\\C\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"\\\\C\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid escape sequence: `\\C`"},
	{"re_err_trailing", "{{ mustRegexMatch \"a\\\\\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"a\\\\\" \"a\">: error calling mustRegexMatch: error parsing regexp: trailing backslash at end of expression: ``"},
	{"re_err_missing_arg", "{{ mustRegexMatch \"(|*)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(|*)\" \"a\">: error calling mustRegexMatch: error parsing regexp: missing argument to repetition operator: `*`"},
	{"re_err_lookbehind", "{{ mustRegexMatch \"(?<=a)b\" \"ab\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?<=a)b\" \"ab\">: error calling mustRegexMatch: error parsing regexp: invalid named capture: `(?<=a)b`"},
	{"re_err_atomic", "{{ mustRegexMatch \"(?>a)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?>a)\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid or unsupported Perl syntax: `(?>`"},
	{"re_err_compile_quote", "{{ regexFind \"a`(\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <regexFind \"a`(\" \"a\">: error calling regexFind: regexp: Compile(\"a`(\"): error parsing regexp: missing closing ): `a`(`"},
	{"re_quote_meta", "{{ regexQuoteMeta \"a-b_c#d e\\\\f\" }}", "{}", 0, "a-b_c#d e\\\\f"},
	{"re_class_edge", "{{ regexFind \"[]a]+\" \"a]b\" }}|{{ regexFind \"[^]a]+\" \"a]bc\" }}|{{ regexFind \"[a-]+\" \"-a-b\" }}|{{ regexFind \"[\\\\]\\\\[]+\" \"x[]y\" }}", "{}", 0, "a]|bc|-a-|[]"},
	{"re_anchor_repeat", "{{ regexFind \"^*a\" \"aa\" }}|{{ regexFind \"\\\\b+x\" \"x\" }}|{{ regexFind \"$*\" \"q\" | toJson }}", "{}", 0, "a|x|\"\""},
	{"re_posix_neg", "{{ regexFind \"[[:^alpha:]]+\" \"ab12c\" }}|{{ regexFind \"[^[:digit:]]+\" \"12ab3\" }}|{{ regexFind \"\\\\pN+\" \"x12\" }}|{{ regexFind \"\\\\PL+\" \"ab12c\" }}|{{ regexFind \"\\\\p{Han}+\" \"x\346\227\245\346\234\254y\" }}", "{}", 0, "12|ab|12|12|\346\227\245\346\234\254"},
	{"re_fold_class", "{{ regexFind \"(?i)[a-c]+\" \"xABCd\" }}|{{ regexFind \"(?i)[k]\" \"\\u212a\" }}|{{ regexFind \"(?i)[^k]\" \"\\u212ak\" | toJson }}", "{}", 0, "ABC|\342\204\252|\"\""},
	{"re_big_escape", "{{ regexMatch \"\\\\x{10FFFF}\" \"\\U0010FFFF\" }}|{{ regexMatch \"[\\\\x00-\\\\x{10FFFF}]\" \"a\" }}|{{ regexMatch \"\\\\x{110000}\" \"a\" }}", "{}", 0, "true|true|false"},
	{"re_err_big_escape", "{{ mustRegexMatch \"\\\\x{110000}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"\\\\x{110000}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid escape sequence: `\\x{110000`"},
	{"re_err_open_flags", "{{ mustRegexMatch \"(?i\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?i\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid or unsupported Perl syntax: `(?i`"},
	{"re_err_pyref", "{{ mustRegexMatch \"(?P=n)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(?P=n)\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid or unsupported Perl syntax: `(?P`"},
	{"re_err_missing_paren2", "{{ mustRegexMatch \"(a(b)\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(a(b)\" \"a\">: error calling mustRegexMatch: error parsing regexp: missing closing ): `(a(b)`"},
	{"re_err_class_end", "{{ mustRegexMatch \"[a-\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"[a-\" \"a\">: error calling mustRegexMatch: error parsing regexp: missing closing ]: `[a-`"},
	{"re_err_repeat_start", "{{ mustRegexMatch \"{2}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"{2}\" \"a\">: error calling mustRegexMatch: error parsing regexp: missing argument to repetition operator: `{2}`"},
	{"re_err_nest3", "{{ mustRegexMatch \"a*?+\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"a*?+\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid nested repetition operator: `*?+`"},
	{"re_replace_empty_adjacent", "{{ regexReplaceAll \"a*\" \"baaac\" \"-\" }}|{{ regexReplaceAllLiteral \"x*\" \"\346\227\245\346\234\254\" \"$\" }}|{{ regexReplaceAll \"(?m)$\" \"a\\nb\" \"!\" | toJson }}", "{}", 0, "-b-c-|$\346\227\245$\346\234\254$|\"a!\\nb!\""},
	{"re_dollar_forms", "{{ regexReplaceAll \"(?P<x>a)\" \"a\" \"${x}${1}$0${2}${x\" }}|{{ regexReplaceAll \"(a)(b)?\" \"a\" \"[$2]\" }}|{{ regexReplaceAll \"(a)\" \"a\" \"$01|$10|${01}\" }}", "{}", 0, "aaa${x|[]|||"},
	{"re_invalid_utf8_subject", "{{ regexFindAll \".\" (b64dec \"YP9i\") -1 | len }}|{{ regexReplaceAll \"b\" (b64dec \"YP9i\") \"B\" | b64enc }}", "{}", 0, "3|YP9C"},
	{"d998", "{{ mustRegexMatch (printf \"%s%s\" (repeat 998 \"(\") (repeat 998 \")\")) \"a\" }}", "{}", 0, "true"},
	{"d999", "{{ mustRegexMatch (printf \"%s%s\" (repeat 999 \"(\") (repeat 999 \")\")) \"a\" }}", "{}", 0, "true"},
	{"d1000", "{{ mustRegexMatch (printf \"%s%s\" (repeat 1000 \"(\") (repeat 1000 \")\")) \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch (printf \"%s%s\" (repeat 1000 \"(\") (repeat 1000 \")\")) \"a\">: error calling mustRegexMatch: error parsing regexp: expression nests too deeply: `(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((())))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))`"},
	{"d999a", "{{ mustRegexMatch (printf \"%sa%s\" (repeat 999 \"(\") (repeat 999 \")\")) \"a\" }}", "{}", 0, "true"},
	{"d998star", "{{ mustRegexMatch (printf \"%sa%s\" (repeat 998 \"(\") (repeat 998 \")*\")) \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch (printf \"%sa%s\" (repeat 998 \"(\") (repeat 998 \")*\")) \"a\">: error calling mustRegexMatch: error parsing regexp: expression nests too deeply: `((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*`"},
	{"d500star", "{{ mustRegexMatch (printf \"%sa%s\" (repeat 500 \"(\") (repeat 500 \")*\")) \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch (printf \"%sa%s\" (repeat 500 \"(\") (repeat 500 \")*\")) \"a\">: error calling mustRegexMatch: error parsing regexp: expression nests too deeply: `((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*`"},
	{"rep_prod", "{{ mustRegexMatch \"((a{10}){10}){10}\" \"a\" }}|{{ mustRegexMatch \"((a{10}){10}b{0}){11}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:48: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"((a{10}){10}b{0}){11}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid repeat count: `{11}`"},
	{"rep_prod2", "{{ mustRegexMatch \"((a{10}){10}){11}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"((a{10}){10}){11}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid repeat count: `{11}`"},
	{"rep_prod3", "{{ mustRegexMatch \"(a{2,}){501}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(a{2,}){501}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid repeat count: `{501}`"},
	{"rep_prod4", "{{ mustRegexMatch \"(a{0}){1000}(b{1,1000}){1}x{1000}\" \"a\" }}", "{}", 0, "false"},
	/* Go takes a capture group name twice; ${name} is the first group of
	 * that name that took part in the match (helm 4.1.4) */
	{"re_dupname", "{{ mustRegexFind \"(?P<n>a)(?P<n>b)\" \"ab\" }}|{{ regexReplaceAll \"(?P<n>a)(?P<n>b)\" \"xaby\" \"[${n}|$1|$2]\" }}|{{ regexFindAll \"(?<n>a)|(?<n>b)\" \"ab\" -1 }}|{{ regexReplaceAll \"(?<n>x)?(?<n>b)\" \"ab\" \"[${n}]\" }}|{{ regexReplaceAll \"(?<n>x)|(?<n>b)\" \"ab\" \"[$n]\" }}", "{}", 0, "ab|x[a|a|b]y|[a b]|a[b]|a[b]"},
	/* a group name is ASCII letters, digits and _ (Go's isValidCaptureName);
	 * [\S] holds \v, which \s leaves out (helm 4.1.4) */
	{"re_go_classes", "{{ regexMatch \"(?P<\u00e9>a)\" \"a\" }}|{{ regexReplaceAll \"[\\\\S]\" \"a\\vb c\" \"X\" | quote }}|{{ regexReplaceAll \"[^\\\\S]\" \"a\\vb c\" \"X\" | quote }}|{{ regexReplaceAll \"[\\\\s]\" \"a\\vb c\" \"X\" | quote }}|{{ regexReplaceAll \"\\\\v\" \"a\\vb c\" \"X\" | quote }}", "{}", 0, "false|\"XXX X\"|\"a\\vbXc\"|\"a\\vbXc\"|\"aXb c\""},
	{"re_large1", "{{ mustRegexMatch \"(a{1000}){1000}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"(a{1000}){1000}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid repeat count: `{1000}`"},
	{"re_large2", "{{ mustRegexMatch \"((a{100}){100}){100}\" \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch \"((a{100}){100}){100}\" \"a\">: error calling mustRegexMatch: error parsing regexp: invalid repeat count: `{100}`"},
	{"re_large3", "{{ mustRegexMatch \"(a{30}){30}\" \"a\" }}", "{}", 0, "false"},
	{"re_pname", "{{ mustRegexMatch \"\\\\p{greek}\" \"a\" }}", "{}", 0, "false"},
	{"re_deep", "{{ mustRegexMatch (printf \"%s%s\" (repeat 1001 \"(\") (repeat 1001 \")\")) \"a\" }}", "{}", 1, "template: vec/templates/test.yaml:1:3: executing \"vec/templates/test.yaml\" at <mustRegexMatch (printf \"%s%s\" (repeat 1001 \"(\") (repeat 1001 \")\")) \"a\">: error calling mustRegexMatch: error parsing regexp: expression nests too deeply: `((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((()))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))`"},
	{"abbrevboth_extreme", "{{ abbrevboth -9223372036854775808 10 \"abcdefghijklmnopqrstuvwxyz\" }}|{{ abbrevboth 9223372036854775807 10 \"abcdefghijklmnopqrstuvwxyz\" }}|{{ abbrev 9223372036854775807 \"abc\" }}|{{ trunc -9223372036854775808 \"abc\" }}|{{ substr 1 9223372036854775807 \"abc\" }}", "{}", 0, "...tuvwxyz|...tuvwxyz|abc|abc|bc"},
	/* Go's strconv.IsPrint (Unicode 15.0.0) in printf %q/%+q/%#q/%#U, quote and
	 * js: spaces, format characters, unassigned and private-use code points,
	 * Unicode 15 letters; squote does not escape (rows from
	 * tests/unit/gen_funcs_formats_goldens.py) */
	{"goprint_q_spaces", "{{ printf \"%q\" \"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\" }}", "{}", 0, "\"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\""},
	{"goprint_plusq_spaces", "{{ printf \"%+q\" \"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\" }}", "{}", 0, "\"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\""},
	{"goprint_quote_spaces", "{{ quote \"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\" }}|{{ squote \"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\" }}", "{}", 0, "\"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\"|'\xc2""\xa0""|\xe1""\x9a""\x80""|\xe2""\x80""\x83""|\xe3""\x80""\x80""|\xe2""\x80""\xaf""|\xe2""\x81""\x9f""|\xe2""\x80""\xa8""|\xe2""\x80""\xa9""|\xc2""\x85""'"},
	{"goprint_js_spaces", "{{ js \"\\u00a0|\\u1680|\\u2003|\\u3000|\\u202f|\\u205f|\\u2028|\\u2029|\\u0085\" }}", "{}", 0, "\\u00A0|\\u1680|\\u2003|\\u3000|\\u202F|\\u205F|\\u2028|\\u2029|\\u0085"},
	{"goprint_q_formats", "{{ printf \"%q\" \"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\" }}", "{}", 0, "\"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\""},
	{"goprint_plusq_formats", "{{ printf \"%+q\" \"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\" }}", "{}", 0, "\"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\""},
	{"goprint_quote_formats", "{{ quote \"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\" }}|{{ squote \"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\" }}", "{}", 0, "\"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\"|'\xc2""\xad""|\xe2""\x80""\x8b""|\xef""\xbb""\xbf""|\xd8""\x9c""|\xd8""\x80""|\xe0""\xa2""\x90""|\xe1""\xa0""\x8e""|\xef""\xbf""\xb9""|\xf0""\x9d""\x85""\xb3""|\xf0""\x93""\x90""\xb0""|\xf3""\xa0""\x80""\x81""'"},
	{"goprint_js_formats", "{{ js \"\\u00ad|\\u200b|\\ufeff|\\u061c|\\u0600|\\u0890|\\u180e|\\ufff9|\\U0001d173|\\U00013430|\\U000e0001\" }}", "{}", 0, "\\u00AD|\\u200B|\\uFEFF|\\u061C|\\u0600|\\u0890|\\u180E|\\uFFF9|\\u1D173|\\u13430|\\uE0001"},
	{"goprint_q_unassigned", "{{ printf \"%q\" \"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\" }}", "{}", 0, "\"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\""},
	{"goprint_plusq_unassigned", "{{ printf \"%+q\" \"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\" }}", "{}", 0, "\"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\""},
	{"goprint_quote_unassigned", "{{ quote \"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\" }}|{{ squote \"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\" }}", "{}", 0, "\"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\"|'\xcd""\xb8""|\xef""\xbf""\xbe""|\xe2""\xbf""\xbc""|\xf0""\xae""\xaf""\xb0""|\xf4""\x8f""\xbf""\xbf""|\xee""\x80""\x80""|\xf3""\xb0""\x80""\x80""|\xf4""\x80""\x80""\x80""'"},
	{"goprint_js_unassigned", "{{ js \"\\u0378|\\ufffe|\\u2ffc|\\U0002ebf0|\\U0010ffff|\\ue000|\\U000f0000|\\U00100000\" }}", "{}", 0, "\\u0378|\\uFFFE|\\u2FFC|\\u2EBF0|\\u10FFFF|\\uE000|\\uF0000|\\u100000"},
	{"goprint_q_unicode15", "{{ printf \"%q\" \"\\U0001e4d0|\\U00011f00|\\U00031350|\\U0001f6dc|\\U000e0100|\\ufffd|\\u00a1|\\u02ff|\\xff|\\xe2\\x80\" }}", "{}", 0, "\"\xf0""\x9e""\x93""\x90""|\xf0""\x91""\xbc""\x80""|\xf0""\xb1""\x8d""\x90""|\xf0""\x9f""\x9b""\x9c""|\xf3""\xa0""\x84""\x80""|\xef""\xbf""\xbd""|\xc2""\xa1""|\xcb""\xbf""|\\xff|\\xe2\\x80\""},
	{"goprint_plusq_unicode15", "{{ printf \"%+q\" \"\\U0001e4d0|\\U00011f00|\\U00031350|\\U0001f6dc|\\U000e0100|\\ufffd|\\u00a1|\\u02ff|\\xff|\\xe2\\x80\" }}", "{}", 0, "\"\\U0001e4d0|\\U00011f00|\\U00031350|\\U0001f6dc|\\U000e0100|\\ufffd|\\u00a1|\\u02ff|\\xff|\\xe2\\x80\""},
	{"goprint_quote_unicode15", "{{ quote \"\\U0001e4d0|\\U00011f00|\\U00031350|\\U0001f6dc|\\U000e0100|\\ufffd|\\u00a1|\\u02ff|\\xff|\\xe2\\x80\" }}|{{ squote \"\\U0001e4d0|\\U00011f00|\\U00031350|\\U0001f6dc|\\U000e0100|\\ufffd|\\u00a1|\\u02ff|\\xff|\\xe2\\x80\" }}", "{}", 0, "\"\xf0""\x9e""\x93""\x90""|\xf0""\x91""\xbc""\x80""|\xf0""\xb1""\x8d""\x90""|\xf0""\x9f""\x9b""\x9c""|\xf3""\xa0""\x84""\x80""|\xef""\xbf""\xbd""|\xc2""\xa1""|\xcb""\xbf""|\\xff|\\xe2\\x80\"|'\xf0""\x9e""\x93""\x90""|\xf0""\x91""\xbc""\x80""|\xf0""\xb1""\x8d""\x90""|\xf0""\x9f""\x9b""\x9c""|\xf3""\xa0""\x84""\x80""|\xef""\xbf""\xbd""|\xc2""\xa1""|\xcb""\xbf""|\xff""|\xe2""\x80""'"},
	{"goprint_js_unicode15", "{{ js \"\\U0001e4d0|\\U00011f00|\\U00031350|\\U0001f6dc|\\U000e0100|\\ufffd|\\u00a1|\\u02ff|\\xff|\\xe2\\x80\" }}", "{}", 0, "\xf0""\x9e""\x93""\x90""|\xf0""\x91""\xbc""\x80""|\xf0""\xb1""\x8d""\x90""|\xf0""\x9f""\x9b""\x9c""|\xf3""\xa0""\x84""\x80""|\xef""\xbf""\xbd""|\xc2""\xa1""|\xcb""\xbf""|\xff""|\xe2""\x80"""},
	{"goprint_sharpq", "{{ printf \"%#q\" \"a\\u00a0\\u3000\\u200b\\U0001e4d0\" }}|{{ printf \"%#q\" \"a\\ufeffb\" }}|{{ printf \"%#q\" \"\\u0378\\xff\" }}|{{ printf \"%8q\" \"\\u3000\\u0378\" }}", "{}", 0, "`a\xc2""\xa0""\xe3""\x80""\x80""\xe2""\x80""\x8b""\xf0""\x9e""\x93""\x90""`|\"a\\ufeffb\"|\"\\u0378\\xff\"|\"\\u3000\\u0378\""},
	{"goprint_rune_q", "{{ printf \"%q|%+q|%q|%q|%q|%+q|%q\" 0xa0 0x3000 0x200b 0x378 0x1e4d0 0x1e4d0 0xe0100 }}", "{}", 0, "'\\u00a0'|'\\u3000'|'\\u200b'|'\\u0378'|'\xf0""\x9e""\x93""\x90""'|'\\U0001e4d0'|'\xf3""\xa0""\x84""\x80""'"},
	{"goprint_sharp_u", "{{ printf \"%#U|%#U|%#U|%#U|%#U|%#U|%#U\" 0xa0 0xa1 0x3000 0x378 0x1e4d0 0x31350 0xfeff }}", "{}", 0, "U+00A0|U+00A1 '\xc2""\xa1""'|U+3000|U+0378|U+1E4D0 '\xf0""\x9e""\x93""\x90""'|U+31350 '\xf0""\xb1""\x8d""\x90""'|U+FEFF"},
	/* %p: a map's, slice's or pointer's address (Go's heap: 0xc000xxxxxx,
	 * different every run), 0x0 when nil, runtime.zerobase (helm 4.1.4's
	 * 0x4029440) for an empty slice; a bad verb otherwise (helm 4.1.4) */
	{"printf_p_fixed", "{{ printf \"%p|%#p|%+12p|%-5p|%p|%p\" (fromJson \"null\") (list) (list) (fromJson \"null\") 1 \"s\" }}", "{}", 0, "0x0|4029440|  +0x4029440|0x0  |%!p(int=1)|%!p(string=s)"},
	{"printf_p_addr", "{{ regexMatch \"^0xc000[0-9a-f]{6}$\" (printf \"%p\" dict) }}|{{ regexMatch \"^c000[0-9a-f]{6}$\" (printf \"%#p\" (list 1)) }}|{{ regexMatch \"^0xc000[0-9a-f]{6}$\" (printf \"%p\" .Capabilities) }}|{{ printf \"%p\" .Capabilities.KubeVersion.Major }}", "{}", 0, "true|true|true|%!p(string=1)"},
};

START_TEST(test_goldens)
{
	fg_check(&goldens[_i]);
}
END_TEST

START_TEST(test_random_strings)
{
	/* fields separated by newlines, which none of the outputs contain */
	char *got = fg_render("{{ randAlpha 200 }}\n{{ randAlphaNum 200 }}\n{{ randNumeric 200 }}\n{{ randAscii 200 }}\n"
			      "{{ randAlpha 0 }}{{ randNumeric -3 }}\n{{ shuffle \"aab\u00e9\" }}", NULL, NULL);
	char *p = got, *f[6];
	for (int i = 0; i < 6; i++) {
		f[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
		ck_assert_msg(p || i == 5, "fields: %s", got);
	}
	ck_assert_uint_eq(strlen(f[0]), 200);
	ck_assert_uint_eq(strlen(f[1]), 200);
	ck_assert_uint_eq(strlen(f[2]), 200);
	ck_assert_uint_eq(strlen(f[3]), 200);
	ck_assert_uint_eq(strspn(f[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), 200);
	ck_assert_uint_eq(strspn(f[1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), 200);
	ck_assert_uint_eq(strspn(f[2], "0123456789"), 200);
	for (int i = 0; i < 200; i++)
		ck_assert(f[3][i] >= ' ' && f[3][i] <= '~');
	ck_assert_str_eq(f[4], "");
	/* the runes of the input, in some order */
	ck_assert_uint_eq(strlen(f[5]), 5);
	ck_assert_ptr_nonnull(strstr(f[5], "\u00e9"));
	/* 200 random letters are not all equal */
	ck_assert(strspn(f[0], (char[]){f[0][0], 0}) < 200);
	free(got);
}
END_TEST

START_TEST(test_size_limits)
{
	/* Go would try to build these; the renderer refuses with a limit error */
	fg_expect_error("{{ repeat 1000000000 \"abcdefgh\" }}", "exceeds the limit");
	fg_expect_error("{{ $s := repeat 1000000 \"\\n\" }}{{ indent 1000 $s | len }}", "result larger than");
	fg_expect_error("{{ $s := repeat 20000 \"x\" }}{{ replace \"\" $s $s | len }}", "result larger than");
	fg_expect_error("{{ $s := repeat 2000 \"x\" }}{{ regexReplaceAll \"\" $s (repeat 100000 \"y\") | len }}",
			"result larger than");
	fg_expect_error("{{ indent -1 \"x\" }}", "error calling indent: strings: negative Repeat count");
}
END_TEST

START_TEST(test_regex_backtracking_bounded)
{
	/* Go's RE2 answers in linear time; PCRE2 backtracking is cut off by
	 * the match limit and reported instead of hanging the renderer */
	fg_expect_error("{{ regexMatch \"(a+)+$\" (print (repeat 40 \"a\") \"b\") }}", "backtracking limit");
	char *got = fg_render("{{ regexMatch \"(a+)+$\" (repeat 40 \"a\") }}", NULL, NULL);
	ck_assert_str_eq(got, "true");
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("funcs_strings");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_goldens, 0, (int)(sizeof(goldens) / sizeof(goldens[0])));
	tcase_add_test(tc, test_random_strings);
	tcase_add_test(tc, test_size_limits);
	tcase_add_test(tc, test_regex_backtracking_bounded);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
