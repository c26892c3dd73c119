package registry

import (
	"net/url"
	"testing"
)

// A request's URL is traced without the values of query parameters that
// carry credentials, such as the signature of a pre-signed storage URL a
// registry redirects blob reads to, and without a password in it.
func TestTraceURLHidesCredentials(t *testing.T) {
	t.Parallel()
	sent := &secrets{}
	sent.add("hunter2")
	for in, want := range map[string]string{
		"https://s3.example/blob?X-Amz-Signature=abc&X-Amz-Credential=AKIA%2F1&X-Amz-Expires=300": "https://s3.example/blob?X-Amz-Signature=***&X-Amz-Credential=***&X-Amz-Expires=300",
		"https://auth.example/token?scope=repository%3Aa%3Apull&service=reg&access_token=t0k":     "https://auth.example/token?scope=repository%3Aa%3Apull&service=reg&access_token=***",
		"https://blob.example/x?sv=2020&sig=abc%3D":                                               "https://blob.example/x?sv=2020&sig=***",
		"https://user:secret@proxy.example/v2/":                                                   "https://user:xxxxx@proxy.example/v2/",
		"https://auth.example/token?account=me&echo=hunter2":                                      "https://auth.example/token?account=me&echo=***",
		"http://127.0.0.1:5000/v2/a/blobs/uploads/x?_state=s&digest=sha256%3Aab":                  "http://127.0.0.1:5000/v2/a/blobs/uploads/x?_state=s&digest=sha256%3Aab",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := traceURL(sent.replacer(), u); got != want {
			t.Errorf("traceURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A redirect's Location is traced as a URL is, and the headers that carry
// credentials show only their scheme.
func TestTraceHeaderHidesCredentials(t *testing.T) {
	t.Parallel()
	sent := &secrets{}
	sent.add("hunter2")
	for _, tt := range []struct{ name, value, want string }{
		{"Authorization", "Bearer eyJhbGciOi.x.y", "Bearer ***"},
		{"proxy-authorization", "Basic dXNlcjpodW50ZXIy", "Basic ***"},
		{"Cookie", "session=abc", "***"},
		{"Set-Cookie", "session=abc; HttpOnly", "***"},
		{"Location", "https://s3.example/b?X-Amz-Signature=abc&X-Amz-Date=1", "https://s3.example/b?X-Amz-Signature=***&X-Amz-Date=1"},
		{"Www-Authenticate", `Bearer realm="https://auth.example/token?pw=hunter2"`, `Bearer realm="https://auth.example/token?pw=***"`},
	} {
		if got := traceHeader(sent.replacer(), tt.name, tt.value); got != tt.want {
			t.Errorf("traceHeader(%s: %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}
