package org.licensemanager.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer (the JDK has none): objects become {@code Map<String, Object>},
 * arrays {@code List<Object>}, numbers {@code Double}, and {@code true}/{@code false}/{@code null}
 * themselves. Enough for license payloads, key lists and error bodies.
 */
public final class Json {
    private static final int MAX_DEPTH = 64;
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** Parses exactly one JSON value; throws IllegalArgumentException when the text is not JSON. */
    public static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value(0);
        reader.skipSpace();
        if (reader.at != text.length()) throw reader.error("text after the JSON value");
        return value;
    }

    /** The text as a JSON string literal, quotes included. */
    public static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        return out.append('"').toString();
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON: " + what + " at " + at);
    }

    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            at++;
        }
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) throw error("nesting too deep");
        skipSpace();
        if (at >= text.length()) throw error("end of text");
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            default -> number();
        };
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, at)) throw error("unknown word");
        at += word.length();
        return value;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> members = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return members;
        }
        while (true) {
            skipSpace();
            if (at >= text.length() || text.charAt(at) != '"') throw error("a member name expected");
            String key = string();
            skipSpace();
            if (at >= text.length() || text.charAt(at) != ':') throw error("':' expected");
            at++;
            members.put(key, value(depth + 1));
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            if (at < text.length() && text.charAt(at) == '}') {
                at++;
                return members;
            }
            throw error("',' or '}' expected");
        }
    }

    private List<Object> array(int depth) {
        List<Object> items = new ArrayList<>();
        at++;
        skipSpace();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return items;
        }
        while (true) {
            items.add(value(depth + 1));
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            if (at < text.length() && text.charAt(at) == ']') {
                at++;
                return items;
            }
            throw error("',' or ']' expected");
        }
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++;
        while (true) {
            if (at >= text.length()) throw error("unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw error("control character in string");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw error("unterminated escape");
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    char unit = hex4();
                    if (Character.isHighSurrogate(unit)) {
                        if (!text.startsWith("\\u", at)) throw error("lone surrogate");
                        at += 2;
                        char low = hex4();
                        if (!Character.isLowSurrogate(low)) throw error("lone surrogate");
                        out.append(unit).append(low);
                    } else if (Character.isLowSurrogate(unit)) {
                        throw error("lone surrogate");
                    } else {
                        out.append(unit);
                    }
                }
                default -> throw error("unknown escape");
            }
        }
    }

    private char hex4() {
        if (at + 4 > text.length()) throw error("short \\u escape");
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(at + i), 16);
            if (digit < 0) throw error("bad \\u escape");
            value = value * 16 + digit;
        }
        at += 4;
        return (char) value;
    }

    private Double number() {
        int start = at;
        if (at < text.length() && text.charAt(at) == '-') at++;
        if (at >= text.length() || !isDigit(text.charAt(at))) throw error("unexpected character");
        if (text.charAt(at) == '0') at++;
        else while (at < text.length() && isDigit(text.charAt(at))) at++;
        if (at < text.length() && text.charAt(at) == '.') {
            at++;
            if (at >= text.length() || !isDigit(text.charAt(at))) throw error("digit expected");
            while (at < text.length() && isDigit(text.charAt(at))) at++;
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at++;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) at++;
            if (at >= text.length() || !isDigit(text.charAt(at))) throw error("digit expected");
            while (at < text.length() && isDigit(text.charAt(at))) at++;
        }
        return Double.valueOf(text.substring(start, at));
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    // Typed access to parsed values, for the client's own reading.

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value) {
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    static String string(Map<String, Object> object, String key) {
        return object != null && object.get(key) instanceof String s ? s : null;
    }

    static Double number(Map<String, Object> object, String key) {
        return object != null && object.get(key) instanceof Double d ? d : null;
    }
}
