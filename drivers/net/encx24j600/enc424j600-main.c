// SPDX-License-Identifier: GPL-2.0
/*
 * Microchip ENC424J600/ENC624J600 SPI Ethernet controller: netdev core.
 *
 * Register access goes through a cached regmap (enc424j600-bus.c) whose
 * bus implements update_bits with the chip's BFSU/BFCU opcodes; the data
 * path uses raw SPI bursts.
 */

#include <linux/bitfield.h>
#include <linux/crc32.h>
#ifdef ENC_TEST_HOOKS
#include <linux/debugfs.h>
#endif
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/netdevice.h>
#include <linux/phy.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>
#include <linux/unaligned.h>

#include "enc424j600.h"
#include "enc424j600-logic.h"

#define ENC_MSG_DEFAULT	(NETIF_MSG_DRV | NETIF_MSG_PROBE | NETIF_MSG_LINK)

/* TXIE is not among them: see enc_tx_done() */
#define ENC_EIE_RUN	(EIE_LINKIE | EIE_PKTIE | EIE_TXABTIE | EIE_RXABTIE | \
			 EIE_PCFULIE)
/* Interrupts in a row with no cause before INT counts as stuck; then the
 * chip is polled every ENC_POLL_INTERVAL and the interrupt tried again
 * after ENC_POLLS_PER_IRQ_TRY polls (a second).
 */
#define ENC_IRQ_STORM		100
#define ENC_POLL_INTERVAL	msecs_to_jiffies(10)
#define ENC_POLLS_PER_IRQ_TRY	100
/* A chip that does not answer after it lost its state is tried again */
#define ENC_RESTORE_RETRY	msecs_to_jiffies(100)
/* A chip not heard from for this long is checked (see enc_health_work()) */
#define ENC_HEALTH_INTERVAL	msecs_to_jiffies(500)
/* Enable bits whose flag (same bit in EIR) is a cause for an interrupt */
#define ENC_EIE_CAUSES		(ENC_EIE_RUN | EIE_TXIE)

/* Batches rx_work takes before it lets other work items run */
#define ENC_RX_WORK_BATCHES	4

#define ENC_EIR_RX_OVERFLOW (EIR_RXABTIF | EIR_PCFULIF)
#define ENC_EIR_CLEARABLE (EIR_LINKIF | EIR_DMAIF | EIR_TXIF | EIR_TXABTIF | \
			   EIR_RXABTIF | EIR_PCFULIF)

/* Status burst: one RCRU from ERXHEAD (0x08) to the end of ECON1 (0x1f) */
#define ENC_ST_FIRST	ERXHEAD
#define ENC_ST_LEN	(ECON1 + 2 - ERXHEAD)
#define ENC_ST(b, reg)	get_unaligned_le16(&(b)[(reg) - ENC_ST_FIRST])

/* The counters are written in process context (IRQ thread, work items,
 * serialised by priv->lock) and read by ndo_get_stats64 in any context:
 * on 32-bit a writer must not be preempted or interrupted by a reader,
 * hence the irqsave flavour (lockdep flags the plain one).
 */
static void enc_stat_add(struct enc_priv *priv, u64_stats_t *s,
			 unsigned long v)
{
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&priv->nstats.syncp);
	u64_stats_add(s, v);
	u64_stats_update_end_irqrestore(&priv->nstats.syncp, flags);
}

/* PHY access through the MII management registers (priv->lock held) */

static void enc_chip_lost(struct enc_priv *priv, const char *why);

/* MISTAT has three bits: all ones is a chip that does not answer.  That
 * is -ENODEV, which phylib's state machine takes quietly (a timeout would
 * halt it with a WARN, and the link would never come back); the chip is
 * then recovered like any lost one.
 */
static int enc_mii_wait(struct enc_priv *priv)
{
	unsigned int v;
	int ret;

	ret = regmap_read_poll_timeout(priv->map, MISTAT, v,
				       !(v & MISTAT_BUSY) || v == 0xffff,
				       30, 10000);
	if (!ret && v == 0xffff) {
		enc_chip_lost(priv, "no answer on the bus");
		return -ENODEV;
	}
	return ret;
}

int enc_phy_read(struct enc_priv *priv, u8 reg, u16 *val)
{
	unsigned int v;
	int ret;

	lockdep_assert_held(&priv->lock);

	priv->dstats.mii_reads++;
	ret = regmap_write(priv->map, MIREGADR, MIREGADR_R8 | reg);
	if (!ret)
		ret = regmap_write(priv->map, MICMD, MICMD_MIIRD);
	if (ret)
		return ret;
	usleep_range(26, 50);
	ret = enc_mii_wait(priv);
	if (!ret)
		ret = regmap_write(priv->map, MICMD, 0);
	if (!ret)
		ret = regmap_read(priv->map, MIRD, &v);
	if (!ret)
		*val = v;
	return ret;
}

int enc_phy_write(struct enc_priv *priv, u8 reg, u16 val)
{
	int ret;

	lockdep_assert_held(&priv->lock);

	priv->dstats.mii_writes++;
	ret = regmap_write(priv->map, MIREGADR, MIREGADR_R8 | reg);
	if (!ret)
		ret = regmap_write(priv->map, MIWR, val);
	if (ret)
		return ret;
	usleep_range(26, 50);
	return enc_mii_wait(priv);
}

/* mdio bus for the internal PHY, address 0.  Its registers 0, 1, 4, 5
 * and 6 have the IEEE 802.3 clause 22 layout (BMCR, BMSR, ADVERTISE, LPA,
 * EXPANSION), but it has no identifier registers 2 and 3: they read as 0,
 * and the generic PHY driver binds to ID 0.
 */
static int enc_mdio_read(struct mii_bus *bus, int addr, int reg)
{
	struct enc_priv *priv = bus->priv;
	u16 val;
	int ret;

	if (addr)
		return 0xffff;
	if (reg == MII_PHYSID1 || reg == MII_PHYSID2)
		return 0;

	mutex_lock(&priv->lock);
	/* the chip is being reset: no PHY to talk to (see enc_mii_wait()) */
	ret = priv->recovering ? -ENODEV : enc_phy_read(priv, reg, &val);
	mutex_unlock(&priv->lock);
	return ret ? ret : val;
}

static int enc_mdio_write(struct mii_bus *bus, int addr, int reg, u16 val)
{
	struct enc_priv *priv = bus->priv;
	int ret;

	if (addr)
		return -ENODEV;
	if (reg == MII_PHYSID1 || reg == MII_PHYSID2)
		return 0;

	mutex_lock(&priv->lock);
	ret = priv->recovering ? -ENODEV : enc_phy_write(priv, reg, val);
	mutex_unlock(&priv->lock);
	return ret;
}

/* Link state: carrier from ESTAT.PHYLNK, MAC duplex from ESTAT.PHYDPX */

static void enc_tx_reset(struct enc_priv *priv)
{
	regmap_set_bits(priv->map, ECON2, ECON2_TXRST);
	regmap_clear_bits(priv->map, ECON2, ECON2_TXRST);
	priv->tx_etxlen = 0;
	priv->dstats.tx_resets++;
}

/* Wake from process context: let the TX softirq run at bh enable.  A
 * device detached for a recovery stays so until reset_work is done; then
 * this attaches it again (waking the queue), once any frame parked before
 * the loss is dealt with: the one TX slot has one owner at a time.
 */
static void enc_wake_queue(struct enc_priv *priv)
{
	lockdep_assert_held(&priv->lock);

	if (priv->recovering || priv->tx_held)
		return;
	local_bh_disable();
	if (netif_device_present(priv->ndev))
		netif_wake_queue(priv->ndev);
	else
		netif_device_attach(priv->ndev);
	local_bh_enable();
}

/* Account the frame in flight once the chip is done with it
 * (ECON1.TXRTS clear).  @eir and @econ1 come from a status read made
 * with priv->lock held.  TXIF is not needed for this and is normally left
 * set: TXIE is only enabled while a frame waits for a slow transmission
 * (enc_tx_arm_irq()).  Returns the EIR flags the caller must clear.
 */
static u16 enc_tx_done(struct enc_priv *priv, u16 eir, u16 econ1)
{
	unsigned long flags;

	if (!priv->tx_inflight || (econ1 & ECON1_TXRTS))
		return 0;

	priv->tx_inflight = false;
	if (eir & EIR_TXABTIF) {
		/* TXIF may be set too (from an earlier frame): fine */
		enc_stat_add(priv, &priv->nstats.tx_errors, 1);
		enc_stat_add(priv, &priv->nstats.tx_aborted_errors, 1);
		enc_tx_reset(priv);
		return EIR_TXABTIF;
	}

	flags = u64_stats_update_begin_irqsave(&priv->nstats.syncp);
	u64_stats_inc(&priv->nstats.tx_packets);
	u64_stats_add(&priv->nstats.tx_bytes, priv->tx_len);
	u64_stats_update_end_irqrestore(&priv->nstats.syncp, flags);
	return 0;
}

static void enc_tx_disarm_irq(struct enc_priv *priv)
{
	if (priv->tx_irq_armed) {
		priv->tx_irq_armed = false;
		priv->eie &= ~EIE_TXIE;
		regmap_clear_bits(priv->map, EIE, EIE_TXIE);
	}
}

static void enc_set_duplex(struct enc_priv *priv, bool full)
{
	regmap_update_bits(priv->map, MACON2, MACON2_FULDPX,
			   full ? MACON2_FULDPX : 0);
	regmap_update_bits(priv->map, MABBIPG, 0x7f,
			   full ? MABBIPG_FULL : MABBIPG_HALF);
}

/* phylib callback (phydev->lock held): the carrier is phylib's; the MAC
 * follows the resolved duplex, and a frame caught in flight by a link
 * loss is given up.
 */
static void enc_adjust_link(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);
	struct phy_device *phydev = ndev->phydev;

	mutex_lock(&priv->lock);
	/* phylib turned the carrier on from a PHY read made just before the
	 * chip was found lost: off again, reset_work settles it
	 */
	if (priv->recovering)
		netif_carrier_off(ndev);
	if (phydev->link) {
		enc_set_duplex(priv, phydev->duplex == DUPLEX_FULL);
		priv->link_10 = phydev->speed == SPEED_10;
	} else if (priv->tx_inflight) {
		priv->tx_inflight = false;
		enc_tx_reset(priv);
		enc_stat_add(priv, &priv->nstats.tx_errors, 1);
		enc_stat_add(priv, &priv->nstats.tx_carrier_errors, 1);
	}
	if (!phydev->link) {
		/* unknown until the link is up again: 100 Mbit/s waits least */
		priv->link_10 = false;
		enc_tx_disarm_irq(priv);
		if (READ_ONCE(priv->tx_skb))
			schedule_work(&priv->tx_work);
	}
	mutex_unlock(&priv->lock);

	if (netif_msg_link(priv))
		phy_print_status(phydev);
}

/* Receive */

/* Reset the receive logic and re-arm the ring (also used by open):
 * ERXRDPT = ERXHEAD, tail just behind it, PKTCNT drained to 0.
 */
static int enc_rx_reset(struct enc_priv *priv)
{
	u16 head, estat;
	int ret, n;

	lockdep_assert_held(&priv->lock);

	ret = enc_cmd(priv, ENC_DISABLERX);
	if (ret)
		return ret;
	regmap_set_bits(priv->map, ECON2, ECON2_RXRST);
	regmap_clear_bits(priv->map, ECON2, ECON2_RXRST);
	regmap_write(priv->map, ERXST, ENC_RX_START);

	ret = enc_read16(priv, ERXHEAD, &head);
	if (ret)
		return ret;
	if (!enc_rx_ptr_ok(head))
		head = ENC_RX_START;
	priv->rx_tail = enc_rx_tail(head);
	regmap_write(priv->map, ERXTAIL, priv->rx_tail);
	ret = enc_ptr_write(priv, ENC_WRXRDPT, head);
	if (ret)
		return ret;
	priv->rx_rdpt = head;
	priv->rx_stall = 0;

	ret = enc_read16(priv, ESTAT, &estat);
	if (ret)
		return ret;
	for (n = estat & ESTAT_PKTCNT; n > 0; n--)
		enc_cmd(priv, ENC_SETPKTDEC);
	regmap_clear_bits(priv->map, EIR, EIR_RXABTIF | EIR_PCFULIF);

	if (priv->up)
		ret = enc_cmd(priv, ENC_ENABLERX);
	return ret;
}

/* Chip health, from a status burst: EUDAST holds the value enc_hw_init()
 * parked it at and ECON1.RXEN is set while up.  After a reset behind the
 * driver's back (brown-out, ESD) both read their reset values; a chip that
 * does not answer reads all ones.
 */
static const char *enc_st_lost(const u8 *st)
{
	if (!memchr_inv(st, 0xff, ENC_ST_LEN))
		return "no answer on the bus";
	if (ENC_ST(st, EUDAST) != ENC_UDA_OFF_ST || !(ENC_ST(st, ECON1) & ECON1_RXEN))
		return "registers back at their reset values";
	return NULL;
}

/* The chip lost the driver's configuration: stop talking to it and let
 * reset_work reset it and restore everything.  Called with priv->lock.
 */
static void enc_chip_lost(struct enc_priv *priv, const char *why)
{
	lockdep_assert_held(&priv->lock);

	/* down: nothing to recover now (also at probe, before the IRQ is
	 * requested); a chip that lost its state meanwhile is found so by
	 * the first status read after open
	 */
	if (priv->recovering || !priv->up)
		return;
	priv->recovering = true;
	priv->dstats.chip_lost++;
	netdev_err(priv->ndev, "chip lost its state (%s), resetting it\n", why);
	/* no frames and no TX watchdog until it is back; rx_work stops (the
	 * restore re-enables the RX interrupts)
	 */
	netif_device_detach(priv->ndev);
	/* no link either: user space and bonding see the outage (phylib's
	 * state is untouched; reset_work hands the carrier back to it)
	 */
	netif_carrier_off(priv->ndev);
	priv->rx_deferred = false;
	/* a chip out of step may hold INT low: not a reason to run the
	 * (real-time) IRQ thread until it is back
	 */
	disable_irq_nosync(priv->ndev->irq);
	schedule_delayed_work(&priv->reset_work, 0);
}

static void enc_rx_corrupt(struct enc_priv *priv, const char *what, u16 at)
{
	u8 st[ENC_ST_LEN];
	const char *lost;

	/* a chip that vanished or reset mid-batch reads as garbage too: that
	 * is a lost chip, not a ring to reset
	 */
	if (!enc_sfr_read(priv, ENC_ST_FIRST, st, sizeof(st))) {
		lost = enc_st_lost(st);
		if (lost) {
			enc_chip_lost(priv, lost);
			return;
		}
		priv->heard = jiffies;
	}
	if (net_ratelimit())
		netdev_err(priv->ndev, "RX ring corrupt (%s at 0x%04x), resetting RX\n",
			   what, at);
	enc_stat_add(priv, &priv->nstats.rx_errors, 1);
	priv->dstats.rx_resets++;
	enc_rx_reset(priv);
}

static void enc_rx_length_error(struct enc_priv *priv)
{
	enc_stat_add(priv, &priv->nstats.rx_errors, 1);
	enc_stat_add(priv, &priv->nstats.rx_length_errors, 1);
}

static void enc_rx_frame(struct enc_priv *priv, const u8 *data, u16 len,
			 u32 rsv)
{
	struct net_device *ndev = priv->ndev;
	unsigned long flags;
	struct sk_buff *skb;

	switch (enc_rsv_verdict(rsv)) {
	case ENC_RSV_OK:
		break;
	case ENC_RSV_CRC_ERROR:
		enc_stat_add(priv, &priv->nstats.rx_errors, 1);
		enc_stat_add(priv, &priv->nstats.rx_crc_errors, 1);
		return;
	case ENC_RSV_LENGTH_ERROR:
		enc_rx_length_error(priv);
		return;
	}

	len -= ETH_FCS_LEN;
	skb = netdev_alloc_skb_ip_align(ndev, len);
	if (!skb) {
		enc_stat_add(priv, &priv->nstats.rx_dropped, 1);
		return;
	}
	skb_put_data(skb, data, len);
	skb->protocol = eth_type_trans(skb, ndev);

	flags = u64_stats_update_begin_irqsave(&priv->nstats.syncp);
	u64_stats_inc(&priv->nstats.rx_packets);
	u64_stats_add(&priv->nstats.rx_bytes, len);
	if (rsv & RSV_MCAST)
		u64_stats_inc(&priv->nstats.multicast);
	u64_stats_update_end_irqrestore(&priv->nstats.syncp, flags);

	netif_rx(skb);
}

/* Read every frame between our read pointer and @head, at most @pktcnt
 * of them (ESTAT.PKTCNT, read after ERXHEAD in the same burst, so it
 * counts every frame before @head).  ERXRDPT already points at the first
 * pending frame (it was set once when RX was armed, and every burst leaves
 * it exactly at the end of what was consumed), so a batch is: one RRXDATA
 * burst of the pending bytes (as many as one SPI transfer takes), one
 * SETPKTDEC per frame, and an ERXTAIL write: at once for a batch of
 * several frames, one that leaves frames behind or one of rx_work, else
 * once ENC_RX_TAIL_LAZY bytes are held back.
 * Should the burst have read past the last complete frame (a transfer too
 * short for the rest, an inconsistent ERXHEAD), ERXRDPT is moved back to
 * it, so nothing is lost or repeated.
 *
 * A frame whose byte count is impossible but whose next pointer is sound
 * is stepped over and counted as a length error.  A batch that can release
 * nothing while frames are pending is allowed once (PKTCNT may count a
 * frame that completed after ERXHEAD was read); twice in a row it is a
 * corrupt ring, reset, and not a reason to run again and again.
 */
static void enc_rx(struct enc_priv *priv, u16 head, unsigned int pktcnt,
		   bool pktif)
{
	u8 *buf = priv->rx_buf + 1;
	u32 pending, have, off = 0;
	u16 pos = priv->rx_rdpt;
	unsigned int frames = 0;
	const char *bad = NULL;

	if (!enc_rx_ptr_ok(head)) {
		enc_rx_corrupt(priv, "ERXHEAD", head);
		return;
	}

	pending = enc_rx_dist(pos, head);
	if (!pending || !pktcnt) {
		if ((pktif || pktcnt) && ++priv->rx_stall > 1)
			enc_rx_corrupt(priv, "PKTCNT", head);
		return;
	}
	priv->dstats.rx_batches++;

	/* the buffer holds the whole ring: one burst, unless the
	 * controller's transfers are shorter (the next batch reads on)
	 */
	have = min_t(u32, pending, priv->rx_burst_max);
	if (enc_rx_read(priv, have)) {
		enc_rx_corrupt(priv, "SPI error", pos);
		return;
	}

	local_bh_disable();
	while (frames < pktcnt && have - off >= ENC_RX_HDR_LEN) {
		const u8 *hdr = buf + off;
		struct enc_rx_hdr h;
		u32 flen;

		enc_rx_hdr_parse(hdr, &h);
		if (!enc_rx_len_ok(h.len)) {
			flen = enc_rx_skip_len(hdr, have - off, pos,
					       have == pending);
			if (flen) {
				if (net_ratelimit())
					netdev_err(priv->ndev, "RX frame at 0x%04x: byte count %u, dropped\n",
						   pos, h.len);
				enc_rx_length_error(priv);
				pos = h.next;
				off += flen;
				frames++;
				continue;
			}
		}
		bad = enc_rx_hdr_check(&h, pos);
		if (bad)
			break;
		flen = enc_rx_frame_size(h.len);
		if (have - off < flen)
			break;

		enc_rx_frame(priv, hdr + ENC_RX_HDR_LEN, h.len, h.rsv);
		pos = h.next;
		off += flen;
		frames++;
	}
	local_bh_enable();

	if (bad && !frames) {
		enc_rx_corrupt(priv, bad, pos);
		return;
	}
	if (!frames && ++priv->rx_stall > 1) {
		enc_rx_corrupt(priv, "frame past ERXHEAD", pos);
		return;
	}
	if (frames)
		priv->rx_stall = 0;
	if (off != have) {
		/* read past the last complete frame: rewind ERXRDPT */
		priv->dstats.rx_rewinds++;
		if (enc_ptr_write(priv, ENC_WRXRDPT, pos)) {
			enc_rx_corrupt(priv, "SPI error", pos);
			return;
		}
	}

	priv->rx_rdpt = pos;
	if (frames) {
		u16 tail = enc_rx_tail(pos);
		/* lazy only for a lone frame that left the ring empty */
		bool set_tail = priv->rx_deferred || frames > 1 || pos != head ||
				enc_rx_tail_due(priv->rx_tail, tail);

		if (enc_rx_release(priv, frames, tail, set_tail))
			enc_rx_corrupt(priv, "SPI error", pos);
		else if (set_tail)
			priv->rx_tail = tail;
	}
}

/* Count the overflow flags in @eir; returns those to clear */
static u16 enc_rx_overflows(struct enc_priv *priv, u16 eir)
{
	if (eir & EIR_RXABTIF)
		enc_stat_add(priv, &priv->nstats.rx_over_errors, 1);
	if (eir & EIR_PCFULIF)
		priv->dstats.rx_pkt_full++;
	return eir & ENC_EIR_RX_OVERFLOW;
}

/* Interrupt sources that rx_work polls instead while it runs */
#define ENC_EIE_RX_DEFERRED	(EIE_PKTIE | EIE_RXABTIE | EIE_PCFULIE)

/* RXABTIF: the wire brought frames faster than the bus took them, and
 * draining the ring from the IRQ thread (real-time priority) for as long
 * as that lasts would starve user space.  Mask the RX interrupts and let
 * rx_work, an ordinary task, drain the ring until it is empty.  One BFCU
 * now and one BFSU when the ring is empty again.
 */
static void enc_rx_defer(struct enc_priv *priv)
{
	lockdep_assert_held(&priv->lock);

	priv->rx_deferred = true;
	priv->dstats.rx_deferrals++;
	regmap_clear_bits(priv->map, EIE, priv->eie & ENC_EIE_RX_DEFERRED);
	schedule_work(&priv->rx_work);
}

static void enc_rx_undefer(struct enc_priv *priv)
{
	priv->rx_deferred = false;
	/* the flags are levels: whatever happened meanwhile interrupts now */
	if (priv->eie & ENC_EIE_RX_DEFERRED)
		regmap_set_bits(priv->map, EIE, priv->eie & ENC_EIE_RX_DEFERRED);
}

static void enc_rx_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(work, struct enc_priv, rx_work);
	unsigned int n, pktcnt;
	u8 st[ENC_ST_LEN];
	u16 clear;

	mutex_lock(&priv->lock);
	for (n = 0; n < ENC_RX_WORK_BATCHES && priv->rx_deferred &&
	     priv->up && !priv->recovering; n++) {
		const char *lost;

		if (enc_sfr_read(priv, ENC_ST_FIRST, st, sizeof(st))) {
			/* leave it to the interrupt */
			enc_rx_undefer(priv);
			break;
		}
		/* a chip gone reads as all ones: 255 frames pending */
		lost = enc_st_lost(st);
		if (lost) {
			enc_chip_lost(priv, lost);
			break;
		}
		priv->heard = jiffies;
		clear = enc_rx_overflows(priv, ENC_ST(st, EIR));
		if (clear)
			regmap_clear_bits(priv->map, EIR, clear);
		pktcnt = ENC_ST(st, ESTAT) & ESTAT_PKTCNT;
		if (!pktcnt) {
			enc_rx_undefer(priv);
			break;
		}
		enc_rx(priv, ENC_ST(st, ERXHEAD), pktcnt,
		       ENC_ST(st, EIR) & EIR_PKTIF);
		/* a frame waits for the TX slot: requeue behind tx_work, or
		 * a long flood starves it into the TX watchdog
		 */
		if (READ_ONCE(priv->tx_skb))
			break;
		mutex_unlock(&priv->lock);
		cond_resched();
		mutex_lock(&priv->lock);
	}
	if (priv->rx_deferred && priv->up && !priv->recovering)
		schedule_work(&priv->rx_work);
	mutex_unlock(&priv->lock);
}

/* One status burst, then link, TX done, RX.  Returns false when the burst
 * showed nothing to do (an interrupt with no cause).
 */
static bool enc_service(struct enc_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	u16 head, eir, clear = 0;
	u8 st[ENC_ST_LEN];
	const char *lost;

	lockdep_assert_held(&priv->lock);

	if (priv->recovering)
		return true;
	if (enc_sfr_read(priv, ENC_ST_FIRST, st, sizeof(st)))
		return true;
	head = ENC_ST(st, ERXHEAD);
	eir = ENC_ST(st, EIR);

	if (!priv->up) {
		/* interrupts are off while down; make sure they stay so */
		regmap_write(priv->map, EIE, 0);
		return false;
	}
	lost = enc_st_lost(st);
	if (lost) {
		enc_chip_lost(priv, lost);
		return true;
	}
	priv->heard = jiffies;

	/* TX completion first: the link handling below must know whether a
	 * frame is still in flight.
	 */
	clear |= enc_tx_done(priv, eir, ENC_ST(st, ECON1));
	if (eir & EIR_TXABTIF)
		clear |= EIR_TXABTIF;
	if (priv->tx_irq_armed) {
		if (!priv->tx_inflight) {
			enc_tx_disarm_irq(priv);
			if (READ_ONCE(priv->tx_skb))
				schedule_work(&priv->tx_work);
		} else if (eir & EIR_TXIF) {
			clear |= EIR_TXIF;	/* cannot be ours: no storm */
		}
	}

	/* the PHY state machine reads the new state over the mdio bus */
	if (eir & EIR_LINKIF) {
		priv->dstats.link_changes++;
		phy_mac_interrupt(ndev->phydev);
	}

	if (!priv->rx_deferred) {
		enc_rx(priv, head, ENC_ST(st, ESTAT) & ESTAT_PKTCNT,
		       eir & EIR_PKTIF);
		/* the chip went mid-batch: reset_work owns it from here */
		if (priv->recovering)
			return true;
		if (eir & EIR_RXABTIF)
			enc_rx_defer(priv);
	}

	/* TXIF is left alone unless armed (see enc_tx_done()); the RX
	 * overflow flags belong to rx_work while it runs
	 */
	if (!priv->rx_deferred)
		clear |= enc_rx_overflows(priv, eir);
	clear |= eir & ENC_EIR_CLEARABLE &
		 ~(EIR_TXIF | EIR_TXABTIF | ENC_EIR_RX_OVERFLOW);
	if (clear)
		regmap_clear_bits(priv->map, EIR, clear);

	/* a cause is a flag of an enabled source, or frames in the ring */
	return (eir & priv->eie & ENC_EIE_CAUSES) ||
	       (ENC_ST(st, ESTAT) & ESTAT_PKTCNT) || priv->tx_irq_armed;
}

/* Interrupt thread.  INT stuck low (a broken line, a chip gone wrong)
 * would run it back to back for ever: after ENC_IRQ_STORM causeless runs
 * in a row the interrupt goes off and poll_work services the chip instead,
 * trying the interrupt again every second.
 */
static irqreturn_t enc_irq_thread(int irq, void *dev_id)
{
	struct enc_priv *priv = dev_id;
	struct net_device *ndev;

	ndev = priv->ndev;
	mutex_lock(&priv->lock);
	priv->dstats.irqs++;

	if (priv->irq_edge)
		enc_cmd(priv, ENC_CLREIE);

	if (enc_service(priv)) {
		priv->idle_irqs = 0;
	} else if (++priv->idle_irqs >= ENC_IRQ_STORM) {
		priv->idle_irqs = 0;
		priv->dstats.irq_storms++;
		netdev_warn(ndev, "INT asserted with nothing to do %u times in a row: polling the chip\n",
			    ENC_IRQ_STORM);
		disable_irq_nosync(irq);
		priv->irq_polled = true;
		priv->polls = 0;
		schedule_delayed_work(&priv->poll_work, ENC_POLL_INTERVAL);
	}

	if (priv->irq_edge && priv->up)
		enc_cmd(priv, ENC_SETEIE);
	mutex_unlock(&priv->lock);
	return IRQ_HANDLED;
}

static void enc_poll_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(to_delayed_work(work),
					     struct enc_priv, poll_work);

	mutex_lock(&priv->lock);
	/* enc_stop() frees the IRQ once it is past this lock */
	if (!priv->irq_polled || !priv->up) {
		mutex_unlock(&priv->lock);
		return;
	}
	enc_service(priv);
	if (++priv->polls >= ENC_POLLS_PER_IRQ_TRY) {
		/* try the interrupt again; a storm comes back here */
		priv->irq_polled = false;
		enable_irq(priv->ndev->irq);
	} else {
		schedule_delayed_work(&priv->poll_work, ENC_POLL_INTERVAL);
	}
	mutex_unlock(&priv->lock);
}

/* A chip reset behind the driver's back (brown-out, ESD) comes back with
 * every interrupt source disabled: on a quiet link, or one that only
 * receives, neither an interrupt nor a transmission would ever tell.  A
 * chip not heard from (no status read found it configured) for
 * ENC_HEALTH_INTERVAL gets the IRQ thread's status burst here, which finds
 * a lost chip.  A link with an event at least every ENC_HEALTH_INTERVAL
 * pays nothing.  Freezable: no SPI traffic while the system suspends.
 */
static void enc_health_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(to_delayed_work(work),
					     struct enc_priv, health_work);
	unsigned long delay = ENC_HEALTH_INTERVAL;
	unsigned long since;

	mutex_lock(&priv->lock);
	if (!priv->up) {
		mutex_unlock(&priv->lock);
		return;
	}
	since = jiffies - priv->heard;
	/* recovering or polled: reset_work or poll_work talks to the chip */
	if (!priv->recovering && !priv->irq_polled) {
		if (since >= ENC_HEALTH_INTERVAL) {
			/* a failed read is checked again an interval on */
			priv->dstats.health_checks++;
			enc_service(priv);
		} else {
			delay = ENC_HEALTH_INTERVAL - since;
		}
	}
	queue_delayed_work(system_freezable_power_efficient_wq,
			   &priv->health_work, delay);
	mutex_unlock(&priv->lock);
}

static int enc_soft_reset(struct enc_priv *priv, bool verbose);

/* Reset the chip and bring back what the driver had configured: the
 * regmap cache holds every configuration register, the RX ring and the
 * interrupt enables are re-armed as open does.  Called with priv->lock.
 */
static int enc_chip_restore(struct enc_priv *priv)
{
	int ret;

	ret = enc_soft_reset(priv, false);
	if (ret)
		return ret;
	regcache_mark_dirty(priv->map);
	ret = regcache_sync(priv->map);
	if (ret)
		return ret;
	if (priv->tx_inflight) {
		/* whether it left is unknown: count it as lost */
		priv->tx_inflight = false;
		enc_stat_add(priv, &priv->nstats.tx_errors, 1);
	}
	enc_tx_disarm_irq(priv);
	priv->link_10 = false;	/* the reset PHY negotiates again */
	priv->tx_wrpt = ENC_PTR_UNKNOWN;
	priv->tx_etxlen = 0;
	priv->rx_deferred = false;
	ret = enc_rx_reset(priv);
	if (ret)
		return ret;
	return regmap_write(priv->map, EIE, priv->eie | EIE_INTIE);
}

static void enc_reset_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(to_delayed_work(work),
					     struct enc_priv, reset_work);
	struct net_device *ndev = priv->ndev;
	int ret;

	mutex_lock(&priv->lock);
	if (!priv->recovering || !priv->up) {
		priv->recovering = false;
		mutex_unlock(&priv->lock);
		return;
	}
	ret = enc_chip_restore(priv);
	if (ret) {
		/* not answering yet: try again, quietly */
		schedule_delayed_work(&priv->reset_work, ENC_RESTORE_RETRY);
		mutex_unlock(&priv->lock);
		return;
	}
	priv->recovering = false;
	priv->heard = jiffies;
	priv->tx_held = true;
	enable_irq(ndev->irq);
	mutex_unlock(&priv->lock);

	netdev_info(ndev, "chip reset and reconfigured\n");
#ifdef ENC_TEST_HOOKS
	/* the stack's next frame races the hand-back below for the one TX
	 * slot; widen the window (nothing here may depend on it)
	 */
	if (priv->inject_restore_delay_ms)
		msleep(priv->inject_restore_delay_ms);
#endif
	/* the PHY was reset with the chip: phylib sets it up again */
	phy_start_aneg(ndev->phydev);
	/* the carrier went off with the chip while phylib saw no change of
	 * link: it is what phylib says now (unless the chip went again
	 * meanwhile), and phylib's from here on.  phylib's lock order.
	 */
	mutex_lock(&ndev->phydev->lock);
	mutex_lock(&priv->lock);
	if (ndev->phydev->link && priv->up && !priv->recovering)
		netif_carrier_on(ndev);
	mutex_unlock(&priv->lock);
	mutex_unlock(&ndev->phydev->lock);

	/* back: at once, or once tx_work has sent the frame parked before
	 * (which may have happened already: attach only, a frame parked
	 * since then owns the slot and tx_work wakes the queue)
	 */
	mutex_lock(&priv->lock);
	priv->tx_held = false;
	if (READ_ONCE(priv->tx_skb)) {
		schedule_work(&priv->tx_work);
	} else if (!priv->recovering) {
		local_bh_disable();
		netif_device_attach(ndev);
		local_bh_enable();
	}
	mutex_unlock(&priv->lock);
}

/* Transmit */

/* One TX buffer in the chip, one frame at a time: the stack hands the
 * frame to priv->tx_skb with the queue stopped, and only the path that
 * takes it from there (tx_work or a TX timeout) wakes the queue; stop
 * drops a frame still parked and open starts the queue again.
 */
static netdev_tx_t enc_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);
	struct sk_buff *parked;

	netif_stop_queue(ndev);
	parked = cmpxchg(&priv->tx_skb, NULL, skb);
	/* the queue was awake with a frame parked: keep both, the stack
	 * requeues this one for when the parked frame is gone
	 */
	if (WARN_ON_ONCE(parked))
		return NETDEV_TX_BUSY;
	schedule_work(&priv->tx_work);
	return NETDEV_TX_OK;
}

/* The TX path's own status read (EIR, ECON1) tells a lost chip too */
static bool enc_tx_st_lost(struct enc_priv *priv, const u8 *st)
{
	u16 eir = get_unaligned_le16(st), econ1 = get_unaligned_le16(st + 2);

	if (eir == 0xffff && econ1 == 0xffff)
		enc_chip_lost(priv, "no answer on the bus");
	else if (!(econ1 & ECON1_RXEN))
		enc_chip_lost(priv, "registers back at their reset values");
	else
		priv->heard = jiffies;
	return priv->recovering;
}

/* The frame in flight has not left yet (slow link, collisions): clear
 * the stale TXIF, enable TXIE and check again, since the transmission may
 * have ended before TXIF was cleared.  Returns true while still waiting;
 * the IRQ thread then reschedules the TX work.
 */
static bool enc_tx_arm_irq(struct enc_priv *priv)
{
	u16 clear;
	u8 st[4];

	if (!priv->tx_irq_armed) {
		regmap_clear_bits(priv->map, EIR, EIR_TXIF);
		priv->eie |= EIE_TXIE;
		regmap_set_bits(priv->map, EIE, EIE_TXIE);
		priv->tx_irq_armed = true;
	}
	if (enc_sfr_read(priv, EIR, st, sizeof(st)) || enc_tx_st_lost(priv, st))
		return true;	/* the TX timeout or reset_work will clean up */
	clear = enc_tx_done(priv, get_unaligned_le16(st),
			    get_unaligned_le16(st + 2));
	if (clear)
		regmap_clear_bits(priv->map, EIR, clear);
	if (priv->tx_inflight)
		return true;
	enc_tx_disarm_irq(priv);
	return false;
}

/* How long a frame of len bytes (without FCS) is on the wire: 8 bytes of
 * preamble and SFD, the frame padded to ETH_ZLEN, the FCS and 12 bytes of
 * inter-frame gap, at 80 ns a byte at 100 Mbit/s and 800 ns at 10 Mbit/s.
 */
static u64 enc_wire_ns(struct enc_priv *priv, unsigned int len)
{
	unsigned int bytes;

	bytes = 8 + max_t(unsigned int, len, ETH_ZLEN) + ETH_FCS_LEN + 12;

	return (u64)bytes * (priv->link_10 ? 800 : 80);
}

/* Write the parked skb into the TX buffer and start it.  In steady state
 * (frames of one size, link faster than the bus) this is three CS frames:
 * a read of EIR+ECON1 that completes the previous frame, one WGPDATA
 * burst of the frame plus filler up to the end of the TX buffer (so that
 * EGPWRPT wraps back to ENC_TX_START), and SETTXRTS.  ETXST/ETXLEN are
 * written only when the length changes, WGPWRPT only when the previous
 * frame was too short to be padded.
 */
static void enc_tx_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(work, struct enc_priv, tx_work);
	struct net_device *ndev = priv->ndev;
	unsigned int len, pad = 0;
	struct sk_buff *skb;
	unsigned int us;
	s64 wait;
	int ret;

	/* A status read before the frame in flight has left the wire finds
	 * TXRTS still set and costs arming TXIF (three transactions and an
	 * interrupt).  When the bus is faster than the wire (short frames,
	 * a 10 Mbit/s link) wait here, without the lock, until tx_wire_end,
	 * when the frame is gone in the usual case (see below, where
	 * SETTXRTS is sent), with little slack.  tx_work is the only writer of
	 * tx_wire_end and does not run concurrently with itself.
	 */
	wait = (s64)(priv->tx_wire_end - ktime_get_ns());
	/* tx_inflight without the lock: a hint, rechecked under it below */
	if (wait > 0 && data_race(priv->tx_inflight) &&
	    READ_ONCE(priv->tx_skb)) {
		/* no valid frame takes 2 ms: the cap only bounds a bad value */
		us = DIV_ROUND_UP((u32)min_t(s64, wait, 2 * NSEC_PER_MSEC),
				  NSEC_PER_USEC);
		/* below 10 us a sleep costs more than it saves */
		if (us < 10)
			udelay(us);
		else
			usleep_range(us, us + min(us / 8 + 1, 50U));
	}

	mutex_lock(&priv->lock);

	/* down: enc_stop() drops a frame still parked */
	if (!priv->up)
		goto out;

	if (test_and_clear_bit(ENC_TX_TIMEOUT, &priv->flags)) {
		enc_stat_add(priv, &priv->nstats.tx_errors, 1);
		if (!priv->recovering) {
			enc_tx_reset(priv);
			enc_tx_disarm_irq(priv);
		}
		priv->tx_inflight = false;
		/* the frame the stack is waiting on goes too */
		skb = xchg(&priv->tx_skb, NULL);
		if (skb) {
			enc_stat_add(priv, &priv->nstats.tx_dropped, 1);
			kfree_skb(skb);
		}
		netif_trans_update(ndev);
		enc_wake_queue(priv);
		goto out;
	}

	/* reset_work reschedules us once the chip is back and the carrier
	 * is known again: a frame parked before the loss is not dropped for
	 * the carrier the loss turned off (it still is if the reset PHY has
	 * to negotiate the link again, as after any link loss)
	 */
	if (!READ_ONCE(priv->tx_skb) || priv->tx_irq_armed ||
	    priv->recovering || priv->tx_held)
		goto out;

	if (priv->tx_inflight) {
		u16 clear;
		u8 st[4];

		if (enc_sfr_read(priv, EIR, st, sizeof(st)))
			goto out;
		if (enc_tx_st_lost(priv, st))
			goto out;
		clear = enc_tx_done(priv, get_unaligned_le16(st),
				    get_unaligned_le16(st + 2));
		if (clear)
			regmap_clear_bits(priv->map, EIR, clear);
		if (priv->tx_inflight && enc_tx_arm_irq(priv))
			goto out;
	}

#ifdef ENC_TEST_HOOKS
	if (priv->inject_tx_hang && netif_device_present(ndev)) {
		/* pretend the chip never takes it: the watchdog must act */
		priv->inject_tx_hang--;
		goto out;
	}
#endif

	skb = xchg(&priv->tx_skb, NULL);
	if (!skb)
		goto out;

	len = skb->len;
	if (len > ENC_TX_SIZE) {
		enc_stat_add(priv, &priv->nstats.tx_dropped, 1);
		kfree_skb_reason(skb, SKB_DROP_REASON_PKT_TOO_BIG);
		enc_wake_queue(priv);
		goto out;
	}
	if (!netif_carrier_ok(ndev)) {
		enc_stat_add(priv, &priv->nstats.tx_dropped, 1);
		kfree_skb_reason(skb, SKB_DROP_REASON_DEV_READY);
		enc_wake_queue(priv);
		goto out;
	}

	if (ENC_TX_SIZE - len <= ENC_TX_PAD_MAX)
		pad = ENC_TX_SIZE - len;

	ret = 0;
	if (priv->tx_wrpt != ENC_TX_START)
		ret = enc_ptr_write(priv, ENC_WGPWRPT, ENC_TX_START);
	if (!ret)
		ret = enc_tx_write(priv, skb->data, len, pad);
	if (ret) {
		priv->tx_wrpt = ENC_PTR_UNKNOWN;
		goto err;
	}
	priv->tx_wrpt = (len + pad) % ENC_TX_SIZE;
	if (len != priv->tx_etxlen) {
		ret = enc_tx_set_len(priv, len);
		if (ret) {
			priv->tx_etxlen = 0;
			goto err;
		}
		priv->tx_etxlen = len;
	}
	ret = enc_cmd(priv, ENC_SETTXRTS);
	if (ret)
		goto err;

	/* The command has taken effect when spi_sync() returns, so this
	 * time is no earlier than the frame's start: in full duplex on an
	 * idle medium the wait above ends after the frame, late by the
	 * return from SETTXRTS rather than early (which costs arming TXIF).
	 * Deferral, collisions or a PAUSE can hold the frame longer: the
	 * completion read then finds it busy and TXIF takes over.
	 */
	priv->tx_len = len;
	priv->tx_wire_end = ktime_get_ns() + enc_wire_ns(priv, len);
	priv->tx_inflight = true;
	consume_skb(skb);
	enc_wake_queue(priv);
	goto out;
err:
	enc_stat_add(priv, &priv->nstats.tx_errors, 1);
	kfree_skb(skb);
	enc_wake_queue(priv);
out:
	mutex_unlock(&priv->lock);
}

static void enc_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct enc_priv *priv = netdev_priv(ndev);

	set_bit(ENC_TX_TIMEOUT, &priv->flags);
	schedule_work(&priv->tx_work);
}

/* Receive filters: ERXFCON and the 64-bit hash table EHT1-4 */

static void enc_rx_mode_apply(struct enc_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	u16 fcon = ERXFCON_BASE;
	u16 ht[4] = { };
	int i;

	lockdep_assert_held(&priv->lock);

	if (ndev->flags & IFF_PROMISC) {
		fcon |= ERXFCON_NOTMEEN | ERXFCON_MCEN;
	} else if (ndev->flags & IFF_ALLMULTI) {
		fcon |= ERXFCON_MCEN;
	} else if (!netdev_mc_empty(ndev)) {
		struct netdev_hw_addr *ha;

		fcon |= ERXFCON_HTEN;
		netif_addr_lock_bh(ndev);
		netdev_for_each_mc_addr(ha, ndev)
			enc_hash_add(ht, ha->addr);
		netif_addr_unlock_bh(ndev);
	}

	/* cached registers: only changed values reach the chip */
	for (i = 0; i < ARRAY_SIZE(ht); i++)
		regmap_update_bits(priv->map, EHT1 + 2 * i, 0xffff, ht[i]);
	regmap_update_bits(priv->map, ERXFCON, 0xffff, fcon);
}

static void enc_rx_mode_work(struct work_struct *work)
{
	struct enc_priv *priv = container_of(work, struct enc_priv,
					     rx_mode_work);

	mutex_lock(&priv->lock);
	enc_rx_mode_apply(priv);
	mutex_unlock(&priv->lock);
}

static void enc_set_rx_mode(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);

	schedule_work(&priv->rx_mode_work);
}

static int enc_write_mac(struct enc_priv *priv, const u8 *addr)
{
	int ret;

	ret = regmap_write(priv->map, MAADR1, addr[0] | addr[1] << 8);
	if (!ret)
		ret = regmap_write(priv->map, MAADR2, addr[2] | addr[3] << 8);
	if (!ret)
		ret = regmap_write(priv->map, MAADR3, addr[4] | addr[5] << 8);
	return ret;
}

static int enc_set_mac_address(struct net_device *ndev, void *p)
{
	struct enc_priv *priv = netdev_priv(ndev);
	int ret;

	ret = eth_prepare_mac_addr_change(ndev, p);
	if (ret)
		return ret;

	mutex_lock(&priv->lock);
	ret = enc_write_mac(priv, ((struct sockaddr *)p)->sa_data);
	mutex_unlock(&priv->lock);
	if (ret)
		return ret;

	eth_commit_mac_addr_change(ndev, p);
	return 0;
}

static void enc_get_stats64(struct net_device *ndev,
			    struct rtnl_link_stats64 *s)
{
	struct enc_priv *priv = netdev_priv(ndev);
	struct enc_net_stats *n = &priv->nstats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&n->syncp);
		s->rx_packets = u64_stats_read(&n->rx_packets);
		s->rx_bytes = u64_stats_read(&n->rx_bytes);
		s->rx_errors = u64_stats_read(&n->rx_errors);
		s->rx_dropped = u64_stats_read(&n->rx_dropped);
		s->rx_over_errors = u64_stats_read(&n->rx_over_errors);
		s->rx_crc_errors = u64_stats_read(&n->rx_crc_errors);
		s->rx_length_errors = u64_stats_read(&n->rx_length_errors);
		s->multicast = u64_stats_read(&n->multicast);
		s->tx_packets = u64_stats_read(&n->tx_packets);
		s->tx_bytes = u64_stats_read(&n->tx_bytes);
		s->tx_errors = u64_stats_read(&n->tx_errors);
		s->tx_dropped = u64_stats_read(&n->tx_dropped);
		s->tx_aborted_errors = u64_stats_read(&n->tx_aborted_errors);
		s->tx_carrier_errors = u64_stats_read(&n->tx_carrier_errors);
	} while (u64_stats_fetch_retry(&n->syncp, start));
}

/* Interrupts off and receive off: the chip as a down interface has it */
static void enc_chip_quiet(struct enc_priv *priv)
{
	lockdep_assert_held(&priv->lock);

	enc_cmd(priv, ENC_CLREIE);
	priv->eie = 0;
	regmap_write(priv->map, EIE, 0);
	enc_cmd(priv, ENC_DISABLERX);
}

/* Also the devm action that runs after unregister, before priv goes */
static void enc_cancel_work(void *data)
{
	struct enc_priv *priv = data;

	/* health_work first: it may queue the others */
	cancel_delayed_work_sync(&priv->health_work);
	cancel_delayed_work_sync(&priv->reset_work);
	cancel_delayed_work_sync(&priv->poll_work);
	cancel_work_sync(&priv->rx_work);
	cancel_work_sync(&priv->tx_work);
	cancel_work_sync(&priv->rx_mode_work);
}

/* The IRQ is requested here and freed in enc_stop(): a down interface has
 * no handler, so a stuck INT line cannot queue work against it, and no
 * work item outlives the interface.
 */
static int enc_open(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);
	int ret;

	/* off until the driver's state and the chip are set up: a thread
	 * run in between would take the half-configured chip for a lost one
	 */
	ret = request_threaded_irq(ndev->irq, NULL, enc_irq_thread,
				   priv->irq_trigger | IRQF_ONESHOT | IRQF_NO_AUTOEN,
				   ndev->name, priv);
	if (ret) {
		netdev_err(ndev, "cannot request IRQ %d: %d\n", ndev->irq, ret);
		return ret;
	}

	mutex_lock(&priv->lock);
	priv->up = true;
	priv->irq_polled = false;
	priv->recovering = false;
	priv->tx_held = false;
	priv->idle_irqs = 0;
	priv->tx_inflight = false;
	priv->tx_irq_armed = false;
	priv->tx_wrpt = ENC_PTR_UNKNOWN;
	priv->tx_etxlen = 0;
	priv->rx_deferred = false;
	clear_bit(ENC_TX_TIMEOUT, &priv->flags);

	enc_rx_mode_apply(priv);
	regmap_clear_bits(priv->map, EIR, ENC_EIR_CLEARABLE);
	ret = enc_rx_reset(priv);
	if (!ret) {
		priv->eie = ENC_EIE_RUN;
		ret = regmap_write(priv->map, EIE, priv->eie);
	}
	if (ret) {
		priv->up = false;
		enc_chip_quiet(priv);
	}
	mutex_unlock(&priv->lock);
	if (ret)
		goto err_free_irq;

	/* INT only once the handler takes it (an edge is not missed) */
	enable_irq(ndev->irq);
	mutex_lock(&priv->lock);
	ret = enc_cmd(priv, ENC_SETEIE);
#ifdef ENC_TEST_HOOKS
	if (!ret && priv->inject_open_fail) {
		/* fail with everything started, RX and INT on */
		priv->inject_open_fail--;
		ret = -EIO;
	}
#endif
	if (ret) {
		/* an IRQ thread or work item waiting for the lock finds the
		 * device down, not a chip to recover
		 */
		priv->up = false;
		enc_chip_quiet(priv);
	}
	mutex_unlock(&priv->lock);
	if (ret)
		goto err_free_irq;

	phy_start(ndev->phydev);
	/* found lost meanwhile: reset_work attaches it, waking the queue */
	mutex_lock(&priv->lock);
	if (netif_device_present(ndev))
		netif_start_queue(ndev);
	priv->heard = jiffies;
	queue_delayed_work(system_freezable_power_efficient_wq,
			   &priv->health_work, ENC_HEALTH_INTERVAL);
	mutex_unlock(&priv->lock);
	return 0;

err_free_irq:
	/* a restore that began before the failure is waited for; one that
	 * had not begun is cancelled and leaves no recovery state behind
	 */
	cancel_delayed_work_sync(&priv->reset_work);
	mutex_lock(&priv->lock);
	priv->recovering = false;
	priv->irq_polled = false;
	priv->rx_deferred = false;
	mutex_unlock(&priv->lock);
	free_irq(ndev->irq, priv);
	enc_cancel_work(priv);
	/* the chip found lost in the meantime: present for the next open,
	 * with no carrier the restore may have turned on
	 */
	netif_carrier_off(ndev);
	netif_device_attach(ndev);
	netdev_err(ndev, "cannot start the chip: %d\n", ret);
	return ret;
}

static int enc_stop(struct net_device *ndev)
{
	struct enc_priv *priv = netdev_priv(ndev);
	struct sk_buff *skb;

	netif_stop_queue(ndev);
	/* down: the IRQ thread and the work items do nothing more, and
	 * reset_work must not restart autonegotiation once the PHY is stopped
	 */
	mutex_lock(&priv->lock);
	priv->up = false;
	priv->recovering = false;	/* phy_stop() reaches the PHY */
	mutex_unlock(&priv->lock);
	cancel_delayed_work_sync(&priv->reset_work);
	phy_stop(ndev->phydev);

	mutex_lock(&priv->lock);
	enc_chip_quiet(priv);
	priv->tx_inflight = false;
	priv->tx_irq_armed = false;
	priv->rx_deferred = false;
	priv->recovering = false;
	priv->irq_polled = false;
	mutex_unlock(&priv->lock);

	/* Down: the work items do nothing from here on and never touch
	 * the IRQ again.  Free it (waiting for a running thread;
	 * a storm's or a reset's disable_irq_nosync() goes with it), then
	 * cancel what it may have queued.
	 */
	free_irq(ndev->irq, priv);
	enc_cancel_work(priv);
	clear_bit(ENC_TX_TIMEOUT, &priv->flags);

	skb = xchg(&priv->tx_skb, NULL);
	if (skb) {
		mutex_lock(&priv->lock);
		enc_stat_add(priv, &priv->nstats.tx_dropped, 1);
		mutex_unlock(&priv->lock);
		kfree_skb_reason(skb, SKB_DROP_REASON_DEV_READY);
	}
	netif_carrier_off(ndev);
	/* a recovery cut short leaves it detached: present for the next open */
	netif_device_attach(ndev);
	return 0;
}

static const struct net_device_ops enc_netdev_ops = {
	.ndo_open		= enc_open,
	.ndo_stop		= enc_stop,
	.ndo_start_xmit		= enc_start_xmit,
	.ndo_set_rx_mode	= enc_set_rx_mode,
	.ndo_set_mac_address	= enc_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_tx_timeout		= enc_tx_timeout,
	.ndo_get_stats64	= enc_get_stats64,
	.ndo_eth_ioctl		= phy_do_ioctl_running,
};

/* Probe: reset, identify, configure */

/* Reset the chip through SPI, as the datasheet's reset procedure has it:
 * EUDAST written and read back until SPI works, CLKRDY, SETETHRST, 25 us,
 * EUDAST back at 0 proves the reset, 256 us before the PHY.  @verbose: say why
 * it failed (probe); recovery retries quietly.
 */
static int enc_soft_reset(struct enc_priv *priv, bool verbose)
{
	struct device *dev = &priv->spi->dev;
	int i, ret;
	u16 v = 0;

	for (i = 0; i < 10; i++) {
		ret = enc_write16(priv, EUDAST, 0x1234);
		if (!ret)
			ret = enc_read16(priv, EUDAST, &v);
		if (ret)
			return ret;
		if (v == 0x1234)
			break;
		usleep_range(1000, 2000);
	}
	if (v != 0x1234) {
		if (verbose)
			dev_err(dev, "no ENCX24J600 answering: EUDAST reads 0x%04x, not 0x1234\n",
				v);
		return -ENODEV;
	}

	for (i = 0; i < 100; i++) {
		ret = enc_read16(priv, ESTAT, &v);
		if (ret)
			return ret;
		if (v & ESTAT_CLKRDY)
			break;
		usleep_range(100, 200);
	}
	if (!(v & ESTAT_CLKRDY)) {
		if (verbose)
			dev_err(dev, "clock not ready (ESTAT 0x%04x)\n", v);
		return -ENODEV;
	}

	ret = enc_cmd(priv, ENC_SETETHRST);
	if (ret)
		return ret;
	usleep_range(50, 100);

	ret = enc_read16(priv, EUDAST, &v);
	if (ret)
		return ret;
	if (v) {
		if (verbose)
			dev_err(dev, "reset failed: EUDAST reads 0x%04x after reset\n", v);
		return -EIO;
	}
	/* PHY registers are usable 256 us after reset */
	usleep_range(1000, 1500);
	priv->dstats.chip_resets++;
	return 0;
}

static int enc_hw_init(struct enc_priv *priv)
{
	struct regmap *map = priv->map;
	int ret;

	/* EIE resets to 0x8010 (INTIE set): keep the pin quiet until open */
	ret = regmap_write(map, EIE, 0);
	if (ret)
		return ret;
	regmap_write(map, ERXST, ENC_RX_START);
	priv->rx_tail = enc_rx_tail(ENC_RX_START);
	regmap_write(map, ERXTAIL, priv->rx_tail);
	regmap_write(map, EUDAST, ENC_UDA_OFF_ST);
	regmap_write(map, EUDAND, ENC_UDA_OFF_ND);
	regmap_write(map, MAMXFL, ENC_MAX_FRAME);
	regmap_write(map, MACON2, MACON2_DEFAULT);
	regmap_write(map, MABBIPG, MABBIPG_HALF);
	regmap_write(map, MACLCON, MACLCON_DEFAULT);
	/* the PHY (autonegotiation included) belongs to phylib */
	return regmap_write(map, ERXFCON, ERXFCON_BASE);
}

/*
 * Runs at unbind, after the netdev is unregistered.  phylib attaches and
 * detaches a PHY under RTNL (phylink asserts it; on 7, phy_detach() reads
 * the netdev's RTNL-protected timestamp provider), as ndo_open() and
 * ndo_stop() would hold it: nothing holds it here, so this takes it.
 */
static void enc_phy_disconnect(void *data)
{
	rtnl_lock();
	phy_disconnect(data);
	rtnl_unlock();
}

static int enc_mdio_init(struct enc_priv *priv)
{
	struct device *dev = &priv->spi->dev;
	struct phy_device *phydev;
	struct mii_bus *bus;
	int ret;

	bus = devm_mdiobus_alloc(dev);
	if (!bus)
		return -ENOMEM;
	bus->name = ENC_DRV_NAME " internal PHY";
	bus->priv = priv;
	bus->parent = dev;
	bus->read = enc_mdio_read;
	bus->write = enc_mdio_write;
	bus->phy_mask = ~BIT(0);
	bus->irq[0] = PHY_MAC_INTERRUPT;	/* LINKIF -> phy_mac_interrupt() */
	snprintf(bus->id, MII_BUS_ID_SIZE, "%s-mii", dev_name(dev));
	ret = devm_mdiobus_register(dev, bus);
	if (ret)
		return dev_err_probe(dev, ret, "cannot register the mdio bus\n");

	phydev = mdiobus_get_phy(bus, 0);
	if (!phydev)
		return dev_err_probe(dev, -ENODEV, "no PHY on the mdio bus\n");
	/* under RTNL, as enc_phy_disconnect() detaches it (and as a failed
	 * attach detaches it before it returns)
	 */
	rtnl_lock();
	ret = phy_connect_direct(priv->ndev, phydev, enc_adjust_link,
				 PHY_INTERFACE_MODE_INTERNAL);
	rtnl_unlock();
	if (ret)
		return dev_err_probe(dev, ret, "cannot attach the PHY\n");
	ret = devm_add_action_or_reset(dev, enc_phy_disconnect, phydev);
	if (ret)
		return ret;
	phy_attached_info(phydev);
	return 0;
}

static int enc_get_mac(struct enc_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	unsigned int a[3];
	u8 addr[ETH_ALEN];
	int ret;

	if (!device_get_ethdev_address(&priv->spi->dev, ndev))
		return enc_write_mac(priv, ndev->dev_addr);

	ret = regmap_read(priv->map, MAADR1, &a[0]);
	if (!ret)
		ret = regmap_read(priv->map, MAADR2, &a[1]);
	if (!ret)
		ret = regmap_read(priv->map, MAADR3, &a[2]);
	if (ret)
		return ret;
	addr[0] = a[0];
	addr[1] = a[0] >> 8;
	addr[2] = a[1];
	addr[3] = a[1] >> 8;
	addr[4] = a[2];
	addr[5] = a[2] >> 8;
	if (is_valid_ether_addr(addr)) {
		eth_hw_addr_set(ndev, addr);
		return 0;
	}

	eth_hw_addr_random(ndev);
	dev_warn(&priv->spi->dev, "no valid MAC address, using random %pM\n",
		 ndev->dev_addr);
	return enc_write_mac(priv, ndev->dev_addr);
}

#ifdef ENC_TEST_HOOKS
/* a controller with short transfers, on a board whose own has none */
static uint max_transfer;
module_param(max_transfer, uint, 0444);
MODULE_PARM_DESC(max_transfer,
		 "Take the SPI controller's transfers to be at most this many bytes (default: 0, the controller's own limit)");

static struct dentry *enc_debugfs_root;

static void enc_debugfs_remove(void *data)
{
	debugfs_remove_recursive(data);
}

/* <debugfs>/enc424j600/<spi device>/: test hooks for paths the chip
 * rarely takes.  inject_tx_hang: the next N frames are left unsent with
 * the queue stopped, as if TX had hung (the TX watchdog path).
 * inject_open_fail: the next N opens fail at their last step, the chip
 * started (the failed-open path).
 */
static void enc_debugfs_init(struct enc_priv *priv)
{
	struct device *dev = &priv->spi->dev;
	struct dentry *dir;

	dir = debugfs_create_dir(dev_name(dev), enc_debugfs_root);
	debugfs_create_u32("inject_tx_hang", 0600, dir, &priv->inject_tx_hang);
	debugfs_create_u32("inject_open_fail", 0600, dir, &priv->inject_open_fail);
	debugfs_create_u32("inject_restore_delay_ms", 0600, dir,
			   &priv->inject_restore_delay_ms);
	devm_add_action_or_reset(dev, enc_debugfs_remove, dir);
}
#endif

static int enc_probe(struct spi_device *spi)
{
	struct device *dev = &spi->dev;
	struct net_device *ndev;
	struct enc_priv *priv;
	unsigned int eidled;
	size_t xfer_max;
	u32 trigger;
	int ret;

	if (spi->irq <= 0)
		return dev_err_probe(dev, -EINVAL, "no interrupt\n");

	spi->mode &= ~(SPI_CPOL | SPI_CPHA);	/* SPI mode 0 */
	spi->bits_per_word = 8;
	ret = spi_setup(spi);
	if (ret)
		return dev_err_probe(dev, ret, "SPI setup failed\n");

	/* An RX burst reads what fits in one transfer; a frame must fit */
	xfer_max = spi_max_transfer_size(spi);
#ifdef ENC_TEST_HOOKS
	if (max_transfer)
		xfer_max = min_t(size_t, xfer_max, max_transfer);
#endif
	if (xfer_max < ENC_XFER_MIN)
		return dev_err_probe(dev, -EINVAL,
				     "SPI transfers of at most %zu bytes cannot carry a frame (%d)\n",
				     xfer_max, ENC_XFER_MIN);

	ndev = devm_alloc_etherdev(dev, sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, dev);
	priv = netdev_priv(ndev);
	priv->ndev = ndev;
	priv->spi = spi;
	priv->rx_burst_max = min_t(size_t, xfer_max - 1, ENC_RX_BUF_SIZE);
	priv->msg_enable = ENC_MSG_DEFAULT;
	spi_set_drvdata(spi, priv);
	mutex_init(&priv->bus_lock);
	mutex_init(&priv->lock);
	u64_stats_init(&priv->nstats.syncp);
	INIT_WORK(&priv->rx_work, enc_rx_work);
	INIT_WORK(&priv->tx_work, enc_tx_work);
	INIT_WORK(&priv->rx_mode_work, enc_rx_mode_work);
	INIT_DELAYED_WORK(&priv->reset_work, enc_reset_work);
	INIT_DELAYED_WORK(&priv->poll_work, enc_poll_work);
	INIT_DELAYED_WORK(&priv->health_work, enc_health_work);

	priv->bufs = devm_kzalloc(dev, sizeof(*priv->bufs), GFP_KERNEL);
	priv->rx_buf = devm_kmalloc(dev, 1 + priv->rx_burst_max, GFP_KERNEL);
	priv->rx_cmd = devm_kzalloc(dev, 1 + priv->rx_burst_max, GFP_KERNEL);
	priv->tx_buf = devm_kmalloc(dev, 1 + ENC_TX_SIZE, GFP_KERNEL);
	if (!priv->bufs || !priv->rx_buf || !priv->rx_cmd || !priv->tx_buf)
		return -ENOMEM;
	priv->rx_cmd[0] = ENC_RRXDATA;

	ret = enc_soft_reset(priv, true);
	if (ret)
		return ret;

	priv->map = enc_regmap_init(priv);
	if (IS_ERR(priv->map))
		return dev_err_probe(dev, PTR_ERR(priv->map), "regmap init failed\n");

	ret = regmap_read(priv->map, EIDLED, &eidled);
	if (ret)
		return ret;
	if (FIELD_GET(EIDLED_DEVID, eidled) != ENC_DEVID) {
		dev_err(dev, "unexpected device ID %lu (EIDLED 0x%04x)\n",
			FIELD_GET(EIDLED_DEVID, eidled), eidled);
		return -ENODEV;
	}
	priv->revid = FIELD_GET(EIDLED_REVID, eidled);

	ret = enc_hw_init(priv);
	if (ret)
		return dev_err_probe(dev, ret, "chip setup failed\n");
	ret = enc_get_mac(priv);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set the MAC address\n");
	ret = enc_mdio_init(priv);
	if (ret)
		return ret;

	ndev->netdev_ops = &enc_netdev_ops;
	ndev->ethtool_ops = &enc_ethtool_ops;
	ndev->watchdog_timeo = 2 * HZ;
	ndev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	ndev->irq = spi->irq;
	netif_carrier_off(ndev);

	/* Device trees written for the old driver may give no trigger type:
	 * it asked for the falling edge, INT's assertion, and so do we.
	 */
	trigger = irq_get_trigger_type(spi->irq);
	if (trigger == IRQ_TYPE_NONE) {
		priv->irq_trigger = IRQF_TRIGGER_FALLING;
		trigger = IRQ_TYPE_EDGE_FALLING;
	}
	priv->irq_edge = trigger & IRQ_TYPE_EDGE_BOTH;

	/* runs after unregister_netdev() (which stops the interface and
	 * frees the IRQ) and before priv is freed
	 */
	ret = devm_add_action_or_reset(dev, enc_cancel_work, priv);
	if (ret)
		return ret;
	ret = devm_register_netdev(dev, ndev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot register netdev\n");
#ifdef ENC_TEST_HOOKS
	enc_debugfs_init(priv);
#endif

	dev_info(dev, "%s: ENCX24J600 rev %u, MAC %pM, IRQ %d\n",
		 ndev->name, priv->revid, ndev->dev_addr, spi->irq);
	return 0;
}

static const struct of_device_id enc_of_match[] = {
	/* the ENC624J600 falls back to it (the binding's items) */
	{ .compatible = "microchip,enc424j600" },
	/* the one compatible device trees have used since 2015 */
	{ .compatible = "microchip,encx24j600" },
	{ }
};
MODULE_DEVICE_TABLE(of, enc_of_match);

static const struct spi_device_id enc_spi_id[] = {
	{ "enc424j600" },
	{ "enc624j600" },
	{ "encx24j600" },
	{ }
};
MODULE_DEVICE_TABLE(spi, enc_spi_id);

static struct spi_driver enc_driver = {
	.driver = {
		.name = ENC_DRV_NAME,
		.of_match_table = enc_of_match,
	},
	.probe = enc_probe,
	.id_table = enc_spi_id,
};

#ifdef ENC_TEST_HOOKS
static int __init enc_init(void)
{
	int ret;

	enc_debugfs_root = debugfs_create_dir(ENC_DRV_NAME, NULL);
	ret = spi_register_driver(&enc_driver);
	if (ret)
		debugfs_remove_recursive(enc_debugfs_root);
	return ret;
}
module_init(enc_init);

static void __exit enc_exit(void)
{
	spi_unregister_driver(&enc_driver);
	debugfs_remove_recursive(enc_debugfs_root);
}
module_exit(enc_exit);
#else
module_spi_driver(enc_driver);
#endif

MODULE_DESCRIPTION("Microchip ENC424J600/ENC624J600 SPI Ethernet driver");
MODULE_LICENSE("GPL");
