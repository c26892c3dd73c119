package main

import (
	"crypto/x509"
	"sync"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// trustFallbackRoots has TLS trust the root certificates compiled into
// stax where the system has none, as in the container image (make
// image), which holds no CA bundle: stax must still reach registries over
// HTTPS there. Where the system has roots, they are used. It runs before
// the first TLS request (registry.Options.BeforeTLS), not at start, as
// importing golang.org/x/crypto/x509roots/fallback would: parsing the
// roots took 3.5 ms of every command's start, and most commands make no
// TLS request (the local store, a registry on loopback).
var trustFallbackRoots = sync.OnceFunc(func() {
	pool := x509.NewCertPool()
	for root := range bundle.Roots() {
		cert, err := x509.ParseCertificate(root.Certificate)
		if err != nil {
			panic(err) // compiled in, and parsed by bundle's own tests
		}
		if root.Constraint == nil {
			pool.AddCert(cert)
		} else {
			pool.AddCertWithConstraint(cert, root.Constraint)
		}
	}
	x509.SetFallbackRoots(pool)
})
