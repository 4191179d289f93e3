package redact

// card matches 13–19 digits, contiguous or in groups of 3–6 joined by one
// space or dash (the same throughout), that pass the Luhn check and start
// with a plausible issuer prefix. Digits glued to a letter, a dot or a comma
// (ids, floats like 0.4111111111111111, thousands) never start or end one.
func card(s string, i int) (span, bool) {
	if i > 0 && (s[i-1] == '.' || s[i-1] == ',') {
		return span{}, false
	}
	var digits [19]byte
	n, j, sep := 0, i, byte(0)
	var ends [8]int // index after each group
	var counts [8]int
	groups := 0
	for groups < len(ends) {
		k := j
		for k < len(s) && isDigit(s[k]) {
			if n+(k-j) < len(digits) {
				digits[n+(k-j)] = s[k]
			}
			k++
		}
		g := k - j
		if groups == 0 && g >= 13 {
			if g > 19 {
				return span{}, false
			}
			n, ends[0], counts[0], groups = g, k, g, 1
			break
		}
		if g < 3 || g > 6 || n+g > 19 {
			break
		}
		n += g
		ends[groups], counts[groups] = k, n
		groups++
		if k+1 >= len(s) || (s[k] != ' ' && s[k] != '-') || !isDigit(s[k+1]) || sep != 0 && s[k] != sep {
			break
		}
		sep = s[k]
		j = k + 1
	}
	for g := groups - 1; g >= 0; g-- {
		m, end := counts[g], ends[g]
		if m < 13 || m > 19 || !numberEnds(s, end) {
			continue
		}
		if plausibleIIN(digits[:m]) && luhn(digits[:m]) {
			return span{start: i, end: end, label: string(Card)}, true
		}
	}
	return span{}, false
}

// numberEnds reports whether a number may end before s[end]: not glued to a
// word byte, and not followed by a decimal or thousands part.
func numberEnds(s string, end int) bool {
	if end >= len(s) {
		return true
	}
	c := s[end]
	if isWord(c) {
		return false
	}
	return !((c == '.' || c == ',') && end+1 < len(s) && isDigit(s[end+1]))
}

// luhn reports whether the ASCII digits pass the Luhn checksum.
func luhn(d []byte) bool {
	sum, dbl := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if dbl {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		dbl = !dbl
	}
	return sum%10 == 0
}

// plausibleIIN reports whether the leading digits belong to a card network:
// Visa 4, Mastercard 51–55 and 2221–2720, Amex 34/37, Diners 30/36/38/39,
// JCB 35, Discover/UnionPay/Maestro 6, Maestro 50/56–58.
func plausibleIIN(d []byte) bool {
	two := int(d[0]-'0')*10 + int(d[1]-'0')
	four := two*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch d[0] {
	case '4', '6':
		return true
	case '5':
		return two == 50 || two >= 51 && two <= 58
	case '3':
		return two == 30 || two >= 34 && two <= 39
	case '2':
		return four >= 2221 && four <= 2720
	}
	return false
}

// ibanLengths is the IBAN length per country (SWIFT IBAN registry).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
	"DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
	"GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
	"IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
	"LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
	"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
	"SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
	"TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// iban matches an IBAN of a known country, compact or printed in groups of
// four joined by single spaces, with a valid mod-97 checksum.
func iban(s string, i int) (span, bool) {
	if len(s)-i < 15 || !isUpper(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return span{}, false
	}
	want, ok := ibanLengths[s[i:i+2]]
	if !ok {
		return span{}, false
	}
	var buf [34]byte
	n, j := 0, i
	for j < len(s) && n < want {
		c := s[j]
		if isUpper(c) || isDigit(c) {
			buf[n] = c
			n++
			j++
			continue
		}
		if c == ' ' && n%4 == 0 && j+1 < len(s) && (isUpper(s[j+1]) || isDigit(s[j+1])) {
			j++
			continue
		}
		break
	}
	if n != want || j < len(s) && isWord(s[j]) || !mod97(buf[:n]) {
		return span{}, false
	}
	return span{start: i, end: j, label: string(IBAN)}, true
}

// mod97 reports whether an IBAN (upper-case letters and digits) has a valid
// ISO 13616 checksum: the rearranged number mod 97 is 1.
func mod97(b []byte) bool {
	r := 0
	add := func(c byte) {
		if isDigit(c) {
			r = (r*10 + int(c-'0')) % 97
			return
		}
		v := int(c-'A') + 10
		r = (r*100 + v) % 97
	}
	for _, c := range b[4:] {
		add(c)
	}
	for _, c := range b[:4] {
		add(c)
	}
	return r == 1
}
