/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Microchip ENC424J600/ENC624J600 SPI Ethernet controller: the driver's pure
 * logic (no I/O, no state), kept apart so KUnit can test it: RX ring pointer
 * arithmetic, the RX header and receive status vector, the multicast hash
 * and the split of an update_bits request into BFSU/BFCU commands.
 */
#ifndef _ENC424J600_LOGIC_H
#define _ENC424J600_LOGIC_H

#include <linux/align.h>
#include <linux/crc32.h>
#include <linux/if_ether.h>
#include <linux/types.h>
#include <linux/unaligned.h>

#include "enc424j600.h"

/* RX ring arithmetic: the ring is ENC_RX_START..ENC_SRAM_END */

/* An address past the end of SRAM, wrapped back into the ring */
static inline u16 enc_rx_wrap(u32 addr)
{
	if (addr > ENC_SRAM_END)
		addr -= ENC_RX_SIZE;
	return addr;
}

/* Bytes from @from to @to going forward around the ring */
static inline u32 enc_rx_dist(u16 from, u16 to)
{
	return to >= from ? to - from : to + ENC_RX_SIZE - from;
}

/* A frame pointer the chip can give: even and inside the ring */
static inline bool enc_rx_ptr_ok(u16 p)
{
	return !(p & 1) && p >= ENC_RX_START && p <= ENC_SRAM_END;
}

/* ERXTAIL for a ring whose next unread frame starts at @next: two bytes
 * behind it, and behind the ring start that is the last even address of
 * SRAM (ERXTAIL must stay inside the ring).
 */
static inline u16 enc_rx_tail(u16 next)
{
	return next == ENC_RX_START ? ENC_SRAM_END - 1 : next - 2;
}

/* Whether ERXTAIL, holding @tail, is due to become @new_tail: once the
 * space consumed behind it reaches ENC_RX_TAIL_LAZY
 */
static inline bool enc_rx_tail_due(u16 tail, u16 new_tail)
{
	return enc_rx_dist(tail, new_tail) >= ENC_RX_TAIL_LAZY;
}

/* RX header in SRAM: the next packet pointer (2 bytes, little endian)
 * followed by the 6-byte receive status vector, whose bits 0..15 are the
 * received byte count (with FCS) and bits 16..47 the status flags.
 */
struct enc_rx_hdr {
	u16 next;
	u16 len;
	u32 rsv;	/* RSV bits 16..47 as bits 0..31 (RSV_* masks) */
};

static inline void enc_rx_hdr_parse(const u8 *hdr, struct enc_rx_hdr *h)
{
	h->next = get_unaligned_le16(hdr);
	h->len = get_unaligned_le16(hdr + 2);
	h->rsv = get_unaligned_le32(hdr + 4);
}

/* Bytes the frame takes in the ring: header, data, pad to even */
static inline u32 enc_rx_frame_size(u16 len)
{
	return ENC_RX_HDR_LEN + ALIGN(len, 2);
}

/* A byte count a stored frame can have (FCS included) */
static inline bool enc_rx_len_ok(u16 len)
{
	return len >= ETH_HLEN + ETH_FCS_LEN && len <= ENC_MAX_FRAME;
}

/* Check a header read at ring address @pos: NULL when sane, otherwise
 * what is wrong with it (for the log).
 */
static inline const char *enc_rx_hdr_check(const struct enc_rx_hdr *h,
					   u16 pos)
{
	if (!enc_rx_len_ok(h->len))
		return "length";
	if (h->next != enc_rx_wrap(pos + enc_rx_frame_size(h->len)))
		return "next pointer";
	return NULL;
}

/* For the frame at ring address @pos, read into @p with @avail bytes
 * from there on, whose byte count is impossible: the bytes to its next
 * pointer if the frame can be stepped over, else 0.  The chip writes the
 * next pointer from the same write pointer it moves ERXHEAD with, so when
 * only the status vector is garbage, only that frame need be lost.  The
 * pointer comes from a header already found wrong, so it is trusted only
 * when confirmed: a boundary the chip could have written (even, inside
 * the ring, a frame of possible size away, within what was stored), and
 * either the end of what was stored (ERXHEAD: @at_head, the bytes read
 * end there, not where a short transfer cut them) or the start of a sane
 * header.  Anything less would walk into frame data, where a peer's bytes
 * could pass for a header.
 */
static inline u32 enc_rx_skip_len(const u8 *p, u32 avail, u16 pos,
				  bool at_head)
{
	struct enc_rx_hdr h, n;
	u32 dist;

	enc_rx_hdr_parse(p, &h);
	dist = enc_rx_dist(pos, h.next);
	if (!enc_rx_ptr_ok(h.next) ||
	    dist < enc_rx_frame_size(ETH_HLEN + ETH_FCS_LEN) ||
	    dist > enc_rx_frame_size(ENC_MAX_FRAME) || dist > avail)
		return 0;
	if (dist == avail)
		return at_head ? dist : 0;
	if (avail - dist < ENC_RX_HDR_LEN)
		return 0;
	enc_rx_hdr_parse(p + dist, &n);
	return enc_rx_hdr_check(&n, h.next) ? 0 : dist;
}

/* What the receive status vector says about a frame */
enum enc_rsv_verdict {
	ENC_RSV_OK,		/* deliver it */
	ENC_RSV_CRC_ERROR,	/* drop, count as CRC error */
	ENC_RSV_LENGTH_ERROR,	/* drop, count as length error */
};

static inline enum enc_rsv_verdict enc_rsv_verdict(u32 rsv)
{
	if (rsv & RSV_RXOK)
		return ENC_RSV_OK;
	if (rsv & RSV_CRCERR)
		return ENC_RSV_CRC_ERROR;
	return ENC_RSV_LENGTH_ERROR;
}

/* Multicast hash filter: bits 28:23 of the Ethernet CRC of the destination
 * address select one of 64 bits in EHT1..EHT4 (EHT1 holds bits 0..15).
 */
static inline unsigned int enc_hash_index(const u8 *addr)
{
	return (ether_crc(ETH_ALEN, addr) >> 23) & 0x3f;
}

static inline void enc_hash_add(u16 ht[4], const u8 *addr)
{
	unsigned int idx = enc_hash_index(addr);

	ht[idx >> 4] |= BIT(idx & 15);
}

/* update_bits(mask, val) on the chip: BFSU sets the bits in @set, BFCU
 * clears the bits in @clr; a zero means that command is not needed.
 */
static inline void enc_update_split(u16 mask, u16 val, u16 *set, u16 *clr)
{
	*set = mask & val;
	*clr = mask & ~val;
}

#endif /* _ENC424J600_LOGIC_H */
