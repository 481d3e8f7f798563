package event

import "testing"

func TestPayloadIsByValue(t *testing.T) {
	w := Warning{Message: "m"}
	var nilResult *Result
	tests := []struct {
		name string
		data Payload
		want Payload
	}{
		{"value", w, w},
		{"pointer", &w, w},
		{"nil pointer", nilResult, nilResult},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Event{Data: tt.data}).Payload(); got != tt.want {
				t.Errorf("Payload() = %#v, want %#v", got, tt.want)
			}
		})
	}
}
