import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ChangeLogPage() {
  return <FeaturePending titleKey="pages.changes" />;
}
