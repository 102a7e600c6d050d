import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function RegisterConfirmPage() {
  return <FeaturePending titleKey="pages.registerConfirm" />;
}
