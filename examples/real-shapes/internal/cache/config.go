package cache

// EvictionThreshold is the fill ratio at which eviction starts.
const EvictionThreshold = 0.9

// MaxEntryBytes caps one cached entry.
const MaxEntryBytes = 4 << 20
