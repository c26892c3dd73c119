package stateful

import "slices"

// canonicalCalibration are the conventional sections of CALIBRATION.md
// (docs/stateful-skills.md).
var canonicalCalibration = []string{"terminology", "output format", "avoid", "compliance"}

// Calibration is a parsed CALIBRATION.md. The file is free-form: its text
// is loaded whole, and its sections are recognised only to be shown.
type Calibration struct {
	Text     string
	Sections []Section
}

// ParseCalibration parses CALIBRATION.md.
func ParseCalibration(data []byte) *Calibration {
	c := &Calibration{Text: string(data)}
	_, secs := splitH2(scanLines(c.Text, 1))
	for _, s := range secs {
		c.Sections = append(c.Sections, Section{
			Title: s.heading.title, Line: s.heading.num,
			Canonical: slices.Contains(canonicalCalibration, normalizeTitle(s.heading.title)),
		})
	}
	return c
}
