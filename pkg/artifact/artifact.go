// Package artifact defines the stax package artifact: its media types, its
// canonical config blob and its manifest, and reads packages back from any
// content store while treating what it reads as hostile.
package artifact

import (
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Artifact and blob media types of the stax specification.
const (
	ArtifactTypePackage = "application/vnd.stax.package.v1"
	// ArtifactTypeAgent is what other stax writers label packages with.
	ArtifactTypeAgent = "application/vnd.stax.agent.v1"
	MediaTypeConfig   = "application/vnd.stax.config.v1+json"
	MediaTypePackages = "application/vnd.stax.packages.v1+json"
)

// SpecVersion is the version of the stax specification this code writes.
const SpecVersion = "1.0.0"

// Config kinds.
const (
	KindPackage = "package"
	KindAgent   = "agent"
)

// Annotation keys beyond the OCI pre-defined ones.
const (
	AnnotationSpecVersion = "dev.stax.spec.version"
)

// Pre-defined OCI annotation keys used on stax manifests, re-exported so
// callers need one import.
const (
	AnnotationCreated     = ocispec.AnnotationCreated
	AnnotationVersion     = ocispec.AnnotationVersion
	AnnotationTitle       = ocispec.AnnotationTitle
	AnnotationDescription = ocispec.AnnotationDescription
	AnnotationVendor      = ocispec.AnnotationVendor
	AnnotationSource      = ocispec.AnnotationSource
	AnnotationRevision    = ocispec.AnnotationRevision
)
